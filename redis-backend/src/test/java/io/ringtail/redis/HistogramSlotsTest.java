package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.ringtail.BucketHistogram;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The binary slot forms against what Redis's own {@code cmsgpack} reads and writes. */
@ExtendWith(RedisExtension.class)
class HistogramSlotsTest {
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> raw;

  @BeforeAll
  static void connect(RedisProcess server) {
    client = RedisClient.create();
    raw = client.connect(ByteArrayCodec.INSTANCE, server.uri());
  }

  @AfterAll
  static void close() {
    raw.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private static byte[] eval(String script, byte[]... args) {
    return raw.sync()
        .eval(script.getBytes(StandardCharsets.UTF_8), ScriptOutputType.VALUE, new byte[0][], args);
  }

  @Test
  void delta_isReadByCmsgpack_andWrittenBackIdentically_atEveryIntegerWidth() {
    int[] slots = {0, 1, 127, 128, 255, 256, 65_535, 65_536, 1_000_000};
    long[] counts = {1, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295L, 4_294_967_296L};
    BucketHistogram h = BucketHistogram.of(7, slots, counts, 1, 0, 1, 0);
    byte[] encoded = HistogramSlots.encode(h);
    assertThat(eval("return cmsgpack.pack(cmsgpack.unpack(ARGV[1]))", encoded)).isEqualTo(encoded);
    assertThat(
            new String(
                eval(
                    "local a = cmsgpack.unpack(ARGV[1]) return #a .. ':' .. a[17] .. ':' .. a[18]",
                    encoded),
                StandardCharsets.US_ASCII))
        .as("slots travel as gaps")
        .isEqualTo("18:934464:4294967296");
  }

  @Test
  void storedBucket_asCmsgpackWritesIt_decodesExactly() {
    byte[] stored =
        eval("return cmsgpack.pack({'3', '9223372036854775807', '5', '70000', '2', 4, 1, 296, 2})");
    BucketHistogram h = HistogramSlots.decodeBucket(11, stored);
    assertThat(h.bucket()).isEqualTo(11);
    assertThat(h.count()).isEqualTo(3);
    assertThat(h.sum()).isEqualTo(Long.MAX_VALUE);
    assertThat(h.min()).isEqualTo(5);
    assertThat(h.max()).isEqualTo(70_000);
    assertThat(h.rejected()).isEqualTo(2);
    assertThat(h.slotCount()).isEqualTo(2);
    assertThat(h.slotAt(1)).isEqualTo(300);
    assertThat(h.countAt(1)).isEqualTo(2);
    assertThat(HistogramSlots.decodeBucket(11, null)).isNull();
  }

  @Test
  void merge_addsStoredBuckets_slotBySlot() {
    HistogramSlots.Merge merge = new HistogramSlots.Merge();
    merge.add(1, eval("return cmsgpack.pack({'3', '30', '5', '15', '1', 4, 1, 296, 2})"));
    merge.add(2, eval("return cmsgpack.pack({'2', '8', '3', '5', '0', 3, 1, 1, 1})"));
    merge.add(3, null);
    BucketHistogram h = merge.result(9);
    assertThat(h.count()).isEqualTo(5);
    assertThat(h.sum()).isEqualTo(38);
    assertThat(h.min()).isEqualTo(3);
    assertThat(h.max()).isEqualTo(15);
    assertThat(h.rejected()).isEqualTo(1);
    assertThat(h.slotCount()).isEqualTo(3);
    assertThat(new long[] {h.slotAt(0), h.slotAt(1), h.slotAt(2)}).containsExactly(3, 4, 300);
    assertThat(new long[] {h.countAt(0), h.countAt(1), h.countAt(2)}).containsExactly(1, 2, 2);
  }

  @Test
  void storedBucket_whoseSlotsDisagreeWithItsCount_isRefused() {
    byte[] stored = eval("return cmsgpack.pack({'4', '10', '5', '5', '0', 4, 3})");
    assertThatThrownBy(() -> HistogramSlots.decodeBucket(1, stored))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("holds 3 samples");
    assertThatThrownBy(() -> new HistogramSlots.Merge().add(1, stored))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("holds 3 samples");
  }

  @Test
  void freshness_keepsTheLatestPublicationPerPublisher_ofCoveredBuckets() {
    byte[] fresh =
        eval(
            "return cmsgpack.pack({'a', '100', '5', 'b', '200', '9', 'a', '150', '6', 'c', '400', '4'})");
    Map<String, Long> latest = new HashMap<>();
    HistogramSlots.decodeFreshness(fresh, 5, 9, latest);
    assertThat(latest).containsExactlyInAnyOrderEntriesOf(Map.of("a", 150L, "b", 200L));
  }
}
