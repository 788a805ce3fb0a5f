package io.ringtail.testkit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A naive, obviously-correct model of a rolling window: it keeps every timestamped sample and
 * answers each question by scanning them. Windows are checked against it on random streams.
 */
public final class ExactWindowModel {
  private final List<long[]> samples = new ArrayList<>();

  /** Remembers a sample recorded at {@code timeNanos}. */
  public void record(long value, long timeNanos) {
    samples.add(new long[] {value, timeNanos});
  }

  /** The exact statistics of the samples timed in {@code [startNanos, endNanos]}. */
  public Stats between(long startNanos, long endNanos) {
    long[] values =
        samples.stream()
            .filter(s -> s[1] - startNanos >= 0 && endNanos - s[1] >= 0)
            .mapToLong(s -> s[0])
            .sorted()
            .toArray();
    return new Stats(values);
  }

  /** Exact statistics of a set of values. */
  public static final class Stats {
    private final long[] sorted;

    Stats(long[] sorted) {
      this.sorted = sorted;
    }

    public long count() {
      return sorted.length;
    }

    public long sum() {
      return Arrays.stream(sorted).sum();
    }

    public long min() {
      return sorted[0];
    }

    public long max() {
      return sorted[sorted.length - 1];
    }

    /** The nearest-rank value: the ceil(p/100 * n)-th smallest (the smallest for p = 0). */
    public long valueAtPercentile(double percentile) {
      BigDecimal rank =
          BigDecimal.valueOf(percentile)
              .multiply(BigDecimal.valueOf(sorted.length))
              .divide(BigDecimal.valueOf(100), 0, RoundingMode.CEILING);
      int r = Math.max(1, rank.intValueExact());
      return sorted[r - 1];
    }
  }
}
