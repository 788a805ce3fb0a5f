package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.testkit.ExactWindowModel;
import io.ringtail.testkit.RollingWindowContract;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HistogramSnapshotTest {
  private final ManualTimeSource time = new ManualTimeSource(5_000_000_000L);

  private HistogramSnapshot filled(long seed, int n, ExactWindowModel model) {
    RollingWindow w = RollingWindow.create(WindowConfig.defaults(), time);
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < n; i++) {
      long v = (long) Math.exp(12 + RollingWindowContract.gaussian(random));
      w.record(v);
      model.record(v, time.nanoTime());
    }
    w.record(-1);
    return (HistogramSnapshot) w.snapshot();
  }

  @Test
  void percentiles_agreeWithHdrHistogramOnTheSameSamples() {
    SplittableRandom random = new SplittableRandom(11);
    for (int trial = 0; trial < 200; trial++) {
      WindowConfig config = WindowConfig.builder().significantDigits(random.nextInt(1, 4)).build();
      RollingWindow w = RollingWindow.create(config, time);
      org.HdrHistogram.Histogram reference =
          new org.HdrHistogram.Histogram(
              config.lowestDiscernibleValue(),
              config.highestTrackableValue(),
              config.significantDigits());
      int n = random.nextInt(1, trial < 100 ? 30 : 20_000);
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        long v =
            random.nextInt(4) == 0
                ? random.nextLong(0, 300)
                : (long) Math.exp(random.nextDouble(2, 25));
        w.record(v);
        reference.recordValue(v);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      HistogramSnapshot s = (HistogramSnapshot) w.snapshot();
      assertThat(s.count()).isEqualTo(reference.getTotalCount());
      for (double p :
          new double[] {0, 0.1, 1, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 99.99, 100}) {
        double expected = Math.max(min, Math.min(max, reference.getValueAtPercentile(p)));
        assertThat(s.valueAtPercentile(p))
            .as("trial %s p%s of %s", trial, p, n)
            .isEqualTo(expected);
      }
      long target = (long) Math.exp(random.nextDouble(2, 25));
      double expectedAbove =
          target >= max
              ? 0.0
              : target < min ? 1.0 : (double) (n - reference.getCountBetweenValues(0, target)) / n;
      assertThat(s.fractionAbove(target)).isEqualTo(expectedAbove);
      assertThat(s.histogram().getTotalCount()).isEqualTo(n);
      assertThat(s.histogram().getValueAtPercentile(50))
          .isEqualTo(reference.getValueAtPercentile(50));
    }
  }

  @Test
  void merge_equalsTheSnapshotOfAllSamples() {
    ExactWindowModel model = new ExactWindowModel();
    HistogramSnapshot a = filled(1, 5_000, model);
    time.advanceNanos(1_000_000);
    HistogramSnapshot b = filled(2, 3_000, model);
    HistogramSnapshot merged = a.merge(b);
    ExactWindowModel.Stats exact = model.between(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
    assertThat(merged.count()).isEqualTo(8_000).isEqualTo(exact.count());
    assertThat(merged.sum()).isEqualTo(exact.sum());
    assertThat(merged.min()).isEqualTo(exact.min());
    assertThat(merged.max()).isEqualTo(exact.max());
    assertThat(merged.rejected()).isEqualTo(2);
    assertThat(merged.startNanos()).isEqualTo(Math.min(a.startNanos(), b.startNanos()));
    assertThat(merged.endNanos()).isEqualTo(b.endNanos());
    for (double p : new double[] {1, 50, 95, 99, 99.9}) {
      long expected = exact.valueAtPercentile(p);
      assertThat(merged.valueAtPercentile(p))
          .isCloseTo(expected, org.assertj.core.api.Assertions.within(expected * 0.01));
    }
    assertThat(a.count()).isEqualTo(5_000);
  }

  @Test
  void bytes_roundTripEveryStatistic() {
    HistogramSnapshot original = filled(3, 10_000, new ExactWindowModel());
    byte[] bytes = original.toByteArray();
    HistogramSnapshot copy = HistogramSnapshot.fromByteArray(bytes);
    assertThat(bytes.length).isLessThan(4_096);
    assertThat(copy.count()).isEqualTo(original.count());
    assertThat(copy.sum()).isEqualTo(original.sum());
    assertThat(copy.min()).isEqualTo(original.min());
    assertThat(copy.max()).isEqualTo(original.max());
    assertThat(copy.rejected()).isEqualTo(original.rejected());
    assertThat(copy.startNanos()).isEqualTo(original.startNanos());
    assertThat(copy.endNanos()).isEqualTo(original.endNanos());
    for (double p = 0; p <= 100; p += 0.5) {
      assertThat(copy.valueAtPercentile(p)).isEqualTo(original.valueAtPercentile(p));
    }
  }

  @Test
  void bytes_ofEmptySnapshotStayEmpty() {
    HistogramSnapshot empty =
        (HistogramSnapshot) RollingWindow.create(WindowConfig.defaults(), time).snapshot();
    HistogramSnapshot copy = HistogramSnapshot.fromByteArray(empty.toByteArray());
    assertThat(copy.isEmpty()).isTrue();
    assertThat(copy.min()).isNaN();
    assertThat(copy.valueAtPercentile(50)).isNaN();
    assertThat(copy.merge(filled(4, 10, new ExactWindowModel())).count()).isEqualTo(10);
  }

  @Test
  void fromByteArray_rejectsGarbageClearly() {
    assertThatThrownBy(() -> HistogramSnapshot.fromByteArray(new byte[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes");
    byte[] good = filled(5, 100, new ExactWindowModel()).toByteArray();
    byte[] truncated = Arrays.copyOf(good, good.length - 10);
    assertThatThrownBy(() -> HistogramSnapshot.fromByteArray(truncated))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes");
    byte[] corrupt = good.clone();
    corrupt[0] ^= 0x7f;
    assertThatThrownBy(() -> HistogramSnapshot.fromByteArray(corrupt))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("header");
  }

  @Test
  void merge_addsCountsLikeRebuildingHistograms() {
    SplittableRandom random = new SplittableRandom(5);
    for (int trial = 0; trial < 50; trial++) {
      ExactWindowModel model = new ExactWindowModel();
      HistogramSnapshot merged = filled(random.nextLong(), random.nextInt(0, 3_000), model);
      org.HdrHistogram.Histogram reference = merged.histogram();
      for (int k = 0; k < 5; k++) {
        HistogramSnapshot next = filled(random.nextLong(), random.nextInt(0, 3_000), model);
        reference.add(next.histogram());
        merged = merged.merge(next);
      }
      assertThat(merged.histogram()).isEqualTo(reference);
      assertThat(merged.count()).isEqualTo(reference.getTotalCount());
    }
  }

  @Test
  void merge_withAWiderRange_growsToHoldTheOthersValues() {
    RollingWindow narrow =
        RollingWindow.create(WindowConfig.builder().highestTrackableValue(1_000).build(), time);
    RollingWindow wide = RollingWindow.create(WindowConfig.defaults(), time);
    narrow.record(10);
    wide.record(5_000_000_000L);
    HistogramSnapshot merged =
        ((HistogramSnapshot) narrow.snapshot()).merge((HistogramSnapshot) wide.snapshot());
    assertThat(merged.count()).isEqualTo(2);
    assertThat(merged.valueAtPercentile(100)).isEqualTo(5_000_000_000.0);
    assertThat(merged.histogram().getTotalCount()).isEqualTo(2);
    assertThat(merged.valueAtPercentile(50)).isEqualTo(10.0);
  }

  /**
   * Snapshots of a few samples spread over the whole range (held sparse) and of many latencies
   * (held dense), from both window kinds and from bucket histograms, merged in every pairing: the
   * same histogram, percentiles and fractions as HdrHistogram fed the same samples.
   */
  @Test
  void sparseAndDenseSnapshots_agreeWithHdrHistogram_aloneAndMerged() {
    SplittableRandom random = new SplittableRandom(23);
    WindowConfig config = WindowConfig.defaults();
    for (int trial = 0; trial < 60; trial++) {
      org.HdrHistogram.Histogram reference =
          new org.HdrHistogram.Histogram(
              config.lowestDiscernibleValue(),
              config.highestTrackableValue(),
              config.significantDigits());
      HistogramSnapshot merged = null;
      for (int part = 0; part < 4; part++) {
        boolean sparse = random.nextBoolean();
        RollingWindow w =
            random.nextBoolean()
                ? RollingWindow.create(config, time)
                : RollingWindow.createCompact(config, time);
        int n = sparse ? random.nextInt(1, 6) : random.nextInt(500, 3_000);
        for (int i = 0; i < n; i++) {
          long v =
              sparse
                  ? (long) Math.exp(random.nextDouble(0, Math.log(config.highestTrackableValue())))
                  : (long) Math.exp(12 + RollingWindowContract.gaussian(random));
          w.record(v);
          reference.recordValue(v);
        }
        HistogramSnapshot s = (HistogramSnapshot) w.snapshot();
        assertThat(s.histogram()).isEqualTo(s.histogram().copy());
        merged = merged == null ? s : merged.merge(s);
      }
      assertThat(merged.histogram()).as("trial %s", trial).isEqualTo(reference);
      for (HistogramSnapshot s :
          new HistogramSnapshot[] {merged, HistogramSnapshot.fromByteArray(merged.toByteArray())}) {
        for (double p : new double[] {0.1, 1, 25, 50, 75, 95, 99, 99.9, 100}) {
          double expected = Math.max(s.min(), Math.min(s.max(), reference.getValueAtPercentile(p)));
          assertThat(s.valueAtPercentile(p)).as("trial %s p%s", trial, p).isEqualTo(expected);
        }
        for (int k = 0; k < 10; k++) {
          long target = (long) Math.exp(random.nextDouble(0, 30));
          double expected =
              target >= s.max()
                  ? 0.0
                  : target < s.min()
                      ? 1.0
                      : (double) (s.count() - reference.getCountBetweenValues(0, target))
                          / s.count();
          assertThat(s.fractionAbove(target))
              .as("trial %s above %s", trial, target)
              .isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void bucketHistograms_farApart_snapshotAsTheWindowDoes() {
    WindowConfig config = WindowConfig.defaults();
    BucketLayout layout = BucketLayout.of(config);
    long hour = 3_600_000_000_000L;
    BucketHistogram early =
        BucketHistogram.of(
            7, new int[] {layout.indexOf(1_000)}, new long[] {2}, 2_000, 1_000, 1_000, 0);
    BucketHistogram late =
        BucketHistogram.of(
            8,
            new int[] {layout.indexOf(1_000), layout.indexOf(hour)},
            new long[] {1, 1},
            1_000 + hour,
            1_000,
            hour,
            1);
    HistogramSnapshot s = BucketHistogram.snapshot(config, java.util.List.of(late, early), 0, 10);
    RollingWindow window = RollingWindow.create(config, time);
    for (long v : new long[] {1_000, 1_000, 1_000, hour}) {
      window.record(v);
    }
    HistogramSnapshot expected = (HistogramSnapshot) window.snapshot();
    assertThat(s.histogram()).isEqualTo(expected.histogram());
    assertThat(s.count()).isEqualTo(4);
    assertThat(s.rejected()).isEqualTo(1);
    for (double p : new double[] {10, 50, 75, 76, 100}) {
      assertThat(s.valueAtPercentile(p)).isEqualTo(expected.valueAtPercentile(p));
    }
    assertThat(s.fractionAbove(1_000)).isEqualTo(0.25);
  }
}
