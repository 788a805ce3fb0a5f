package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.BucketHistogram;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The fleet engine's bytes: each kind read back as written, and bad bytes refused by name. */
class FleetCodecTest {
  private static BucketHistogram histogram(SplittableRandom random, long bucket) {
    int n = random.nextInt(0, 50);
    int[] slots = new int[n];
    long[] counts = new long[n];
    long sum = 0;
    int slot = 0;
    for (int i = 0; i < n; i++) {
      slot += random.nextInt(1, 300);
      slots[i] = slot;
      counts[i] = random.nextLong(1, 1L << 40);
      sum += counts[i];
    }
    return BucketHistogram.of(bucket, slots, counts, sum * 3, 5, 5 + slot, random.nextInt(3));
  }

  private static void assertSame(BucketHistogram a, BucketHistogram b) {
    assertThat(b.bucket()).isEqualTo(a.bucket());
    assertThat(b.count()).isEqualTo(a.count());
    assertThat(b.sum()).isEqualTo(a.sum());
    assertThat(b.rejected()).isEqualTo(a.rejected());
    assertThat(b.slotCount()).isEqualTo(a.slotCount());
    for (int i = 0; i < a.slotCount(); i++) {
      assertThat(b.slotAt(i)).isEqualTo(a.slotAt(i));
      assertThat(b.countAt(i)).isEqualTo(a.countAt(i));
    }
    if (a.count() > 0) {
      assertThat(b.min()).isEqualTo(a.min());
      assertThat(b.max()).isEqualTo(a.max());
    }
  }

  @Test
  void batchesAndBuckets_readBackAsWritten_onRandomHistograms() {
    SplittableRandom random = new SplittableRandom(36);
    for (int round = 0; round < 200; round++) {
      List<FleetCodec.BucketHistogramOfKey> entries = new ArrayList<>();
      for (int e = 0; e < random.nextInt(1, 10); e++) {
        long bucket = random.nextLong(-5, 1L << 40);
        entries.add(
            new FleetCodec.BucketHistogramOfKey("GET /r/" + e + "é", histogram(random, bucket)));
      }
      long asOf = random.nextLong();
      FleetCodec.Batch back = FleetCodec.Batch.decode(new FleetCodec.Batch(asOf, entries).encode());
      assertThat(back.asOfNanos()).isEqualTo(asOf);
      assertThat(back.entries()).hasSize(entries.size());
      for (int i = 0; i < entries.size(); i++) {
        assertThat(back.entries().get(i).key()).isEqualTo(entries.get(i).key());
        assertSame(entries.get(i).histogram(), back.entries().get(i).histogram());
        BucketHistogram h = entries.get(i).histogram();
        assertSame(h, FleetCodec.decodeBucket(h.bucket(), FleetCodec.encodeBucket(h)));
      }
    }
    assertThat(FleetCodec.decodeBucket(3, null)).isNull();
  }

  /** A head's publisher count is a number, not a count of bytes to follow: 500 in a short head. */
  @Test
  void head_ofManyPublishersAndFewKeys_readsBack() {
    Map<String, TreeMap<Long, Long>> keys = new LinkedHashMap<>();
    keys.put("k", new TreeMap<>(Map.of(100L, 7L, 101L, 9L)));
    FleetCodec.Head head = new FleetCodec.Head(1_000, 500, 900, keys);
    FleetCodec.Head back = FleetCodec.Head.decode(head.encode());
    assertThat(back).isEqualTo(head);
    FleetCodec.Head none = new FleetCodec.Head(-1, 100_000, -5, Map.of());
    assertThat(FleetCodec.Head.decode(none.encode())).isEqualTo(none);
    assertThat(FleetCodec.Head.decode(null)).isEqualTo(FleetCodec.Head.EMPTY);
  }

  @Test
  void table_readsBack() {
    Map<String, FleetCodec.Publisher> rows = new LinkedHashMap<>();
    for (int p = 0; p < 1_000; p++) {
      rows.put("p" + p, new FleetCodec.Publisher(p * 7L, -p));
    }
    assertThat(FleetCodec.Table.decode(new FleetCodec.Table(rows).encode()).publishers())
        .isEqualTo(rows);
    assertThat(FleetCodec.Table.decode(null).publishers()).isEmpty();
  }

  @Test
  void badBytes_areRefusedWithAnIllegalStateException_neverAnotherException() {
    byte[] good =
        new FleetCodec.Batch(
                1,
                List.of(
                    new FleetCodec.BucketHistogramOfKey(
                        "k", histogram(new SplittableRandom(1), 9))))
            .encode();
    assertThatThrownBy(() -> FleetCodec.Batch.decode(new byte[0]))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FleetCodec.Head.decode(good))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("format");
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 2_000; i++) {
      byte[] bad = Arrays.copyOf(good, random.nextInt(1, good.length + 4));
      if (bad.length > 1) {
        bad[random.nextInt(1, bad.length)] = (byte) random.nextInt(256);
      }
      try {
        FleetCodec.Batch.decode(bad);
      } catch (IllegalStateException expected) {
        // refused, as it should be
      }
    }
  }
}
