package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link WindowSnapshot#fractionAbove}: the bisection default and the histogram snapshot's own
 * count.
 */
class FractionAboveTest {

  /**
   * Like the Redis window's snapshot: exact values only at a few fetched percentiles (and 0 and
   * 100); any other percentile returns the value at the next fetched rank above, an upper bound.
   */
  private record FetchedRanksSnapshot(long[] sorted, double[] fetched) implements WindowSnapshot {
    @Override
    public long count() {
      return sorted.length;
    }

    @Override
    public long sum() {
      return Arrays.stream(sorted).sum();
    }

    @Override
    public long rejected() {
      return 0;
    }

    @Override
    public double min() {
      return sorted[0];
    }

    @Override
    public double max() {
      return sorted[sorted.length - 1];
    }

    @Override
    public long startNanos() {
      return 0;
    }

    @Override
    public long endNanos() {
      return 0;
    }

    private long rank(double p) {
      return (long) Math.max(1, Math.ceil(p / 100.0 * sorted.length));
    }

    @Override
    public double valueAtPercentile(double p) {
      long wanted = rank(p);
      long best = sorted.length;
      for (double f : fetched) {
        long r = rank(f);
        if (r >= wanted && r < best) {
          best = r;
        }
      }
      return sorted[(int) best - 1];
    }
  }

  @Test
  void fractionAbove_onSnapshotsWithFewExactRanks_isAConservativeUpperBound() {
    SplittableRandom random = new SplittableRandom(3);
    double[] fetched = {0, 50, 95, 99, 100};
    for (int trial = 0; trial < 1_000; trial++) {
      long[] values = random.longs(1 + random.nextInt(2_000), 0, 1_000).sorted().toArray();
      long target = random.nextLong(0, 1_000);
      FetchedRanksSnapshot s = new FetchedRanksSnapshot(values, fetched);
      double fraction = s.fractionAbove(target);
      assertThat(fraction).isGreaterThanOrEqualTo(exactAbove(values, target));
      // never more pessimistic than the coarsest fetched rank that is still at or below target
      double bound = 1.0;
      for (double f : fetched) {
        long r = s.rank(f);
        if (values[(int) r - 1] <= target) {
          bound = Math.min(bound, (double) (values.length - r) / values.length);
        }
      }
      assertThat(fraction).isLessThanOrEqualTo(bound);
    }
  }

  private static double exactAbove(long[] values, double target) {
    return values.length == 0
        ? Double.NaN
        : (double) Arrays.stream(values).filter(v -> v > target).count() / values.length;
  }

  @Test
  void fractionAbove_onExactSnapshots_isExact() {
    SplittableRandom random = new SplittableRandom(1);
    for (int trial = 0; trial < 2_000; trial++) {
      int n = 1 + random.nextInt(trial < 1000 ? 20 : 5_000);
      int spread = 1 + random.nextInt(200);
      long[] values = random.longs(n, 0, spread).sorted().toArray();
      long target = random.nextLong(-1, spread + 1);
      assertThat(new ExactSnapshot(values).fractionAbove(target))
          .as("n=%d target=%d", n, target)
          .isEqualTo(exactAbove(values, target));
    }
    assertThat(new ExactSnapshot(new long[0]).fractionAbove(5)).isNaN();
  }

  @Test
  void fractionAbove_onRollingWindow_matchesExactModelWithinResolution() {
    SplittableRandom random = new SplittableRandom(2);
    ManualTimeSource time = new ManualTimeSource(3_000_000_000L);
    RollingWindow window =
        RollingWindow.create(
            WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).stripes(1).build(),
            time);
    ExactWindowModel model = new ExactWindowModel();
    for (int op = 0; op < 3_000; op++) {
      long value = (long) Math.exp(random.nextDouble(Math.log(1_000), Math.log(5_000_000_000.0)));
      window.recordAt(value, time.nanoTime());
      model.record(value, time.nanoTime());
      time.advanceNanos(random.nextLong(20_000_000));
      if (op % 50 == 0) {
        WindowSnapshot s = window.snapshot();
        long[] exact = new long[(int) s.count()];
        ExactWindowModel.Stats stats = model.between(s.startNanos(), s.endNanos());
        assertThat(s.count()).isEqualTo(stats.count());
        for (int i = 0; i < exact.length; i++) {
          exact[i] = stats.valueAtPercentile(100.0 * (i + 0.5) / exact.length);
        }
        long target =
            (long) Math.exp(random.nextDouble(Math.log(1_000), Math.log(5_000_000_000.0)));
        double fraction = s.fractionAbove(target);
        // 2 significant digits: values resolve to within 1 %
        assertThat(fraction)
            .isBetween(exactAbove(exact, target * 1.01), exactAbove(exact, target * 0.99));
      }
    }
  }
}
