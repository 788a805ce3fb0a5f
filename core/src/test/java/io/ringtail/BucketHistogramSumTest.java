package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class BucketHistogramSumTest {
  private static final long WIDTH = Duration.ofSeconds(1).toNanos();
  private static final long T0 = 1_000_000_000_000_000L;

  /**
   * Buckets join the sum as they are drained, are replaced by their merge with later samples, and
   * leave it as the window slides: every snapshot equals the one built from the buckets held, and
   * its count, sum, min and max those of an exact model of the samples in those buckets.
   */
  @Test
  void randomStream_addedReplacedAndRemoved_matchesTheBucketsHeld_andTheExactModel() {
    WindowConfig config = WindowConfig.defaults();
    ManualTimeSource time = new ManualTimeSource(T0);
    BucketRecorder recorder = BucketRecorder.create(config, time);
    BucketHistogramSum sum = new BucketHistogramSum(config);
    TreeMap<Long, BucketHistogram> held = new TreeMap<>();
    ExactWindowModel model = new ExactWindowModel();
    SplittableRandom random = new SplittableRandom(17);
    int checks = 0;
    for (int op = 0; op < 30_000; op++) {
      int dice = random.nextInt(100);
      if (dice < 4) {
        time.advance(Duration.ofMillis(random.nextInt(0, 3_000)));
      } else if (dice < 95) {
        // wide and narrow ranges, so the counts grow at both ends
        long value =
            random.nextInt(10) == 0
                ? random.nextLong(0, 5)
                : (long) Math.exp(8 + 10 * random.nextDouble());
        recorder.record(value);
        model.record(value, time.nanoTime());
      } else {
        for (BucketHistogram b : recorder.drain()) {
          BucketHistogram before = held.get(b.bucket());
          BucketHistogram after = before == null ? b : before.plus(b);
          if (before != null) {
            sum.remove(before);
          }
          sum.add(after);
          held.put(b.bucket(), after);
        }
        long live = Math.floorDiv(time.nanoTime(), WIDTH);
        long first = live - config.buckets() + 1;
        for (Map.Entry<Long, BucketHistogram> e : new ArrayList<>(held.headMap(first).entrySet())) {
          sum.remove(e.getValue());
          held.remove(e.getKey());
        }
        long start = first * WIDTH;
        HistogramSnapshot actual = sum.snapshot(start, time.nanoTime());
        HistogramSnapshot expected =
            BucketHistogram.snapshot(config, held.values(), start, time.nanoTime());
        assertSame(actual, expected);
        ExactWindowModel.Stats exact = model.between(start, (live + 1) * WIDTH);
        assertThat(actual.count()).isEqualTo(exact.count());
        assertThat(actual.sum()).isEqualTo(exact.sum());
        if (exact.count() > 0) {
          assertThat(actual.min()).isEqualTo(exact.min());
          assertThat(actual.max()).isEqualTo(exact.max());
        }
        checks++;
      }
    }
    assertThat(checks).isGreaterThan(1_000);
  }

  @Test
  void everyBucketRemoved_isEmpty_andStartsItsRangeAfresh() {
    WindowConfig config = WindowConfig.defaults();
    BucketHistogramSum sum = new BucketHistogramSum(config);
    ManualTimeSource time = new ManualTimeSource(T0);
    BucketRecorder recorder = BucketRecorder.create(config, time);
    recorder.record(1_000_000);
    List<BucketHistogram> one = recorder.drain();
    sum.add(one.get(0));
    sum.remove(one.get(0));
    HistogramSnapshot empty = sum.snapshot(0, 1);
    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.count()).isZero();
    assertThat(empty.sum()).isZero();
    recorder.record(3);
    BucketHistogram small = recorder.drain().get(0);
    sum.add(small);
    assertThat(sum.snapshot(0, 1).max()).isEqualTo(3);
    assertThat(sum.snapshot(0, 1).count()).isEqualTo(1);
  }

  @Test
  void aBucketOfAnotherLayout_isRefusedWithItsSlot() {
    WindowConfig coarse = WindowConfig.defaults();
    int beyond = BucketLayout.of(coarse).length();
    BucketHistogram b = BucketHistogram.of(7, new int[] {beyond}, new long[] {1}, 5, 5, 5, 0);
    BucketHistogramSum sum = new BucketHistogramSum(coarse);
    assertThatThrownBy(() -> sum.add(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slots");
    assertThatThrownBy(() -> new BucketHistogramSum(null)).isInstanceOf(NullPointerException.class);
  }

  private static void assertSame(HistogramSnapshot actual, HistogramSnapshot expected) {
    assertThat(actual.count()).isEqualTo(expected.count());
    assertThat(actual.sum()).isEqualTo(expected.sum());
    assertThat(actual.rejected()).isEqualTo(expected.rejected());
    assertThat(actual.isEmpty()).isEqualTo(expected.isEmpty());
    if (!expected.isEmpty()) {
      assertThat(actual.min()).isEqualTo(expected.min());
      assertThat(actual.max()).isEqualTo(expected.max());
      for (double p = 0; p <= 100; p += 2.5) {
        assertThat(actual.valueAtPercentile(p))
            .as("p%s", p)
            .isEqualTo(expected.valueAtPercentile(p));
      }
    }
  }
}
