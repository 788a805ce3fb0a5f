package io.ringtail;

/**
 * What a rolling window held over one interval of time: the one view that Micrometer gauges,
 * alert rules, examples and every window implementation (in-process or in Redis) share.
 *
 * <p>Immutable and thread-safe. The interval is {@code [startNanos, endNanos]} in the window's
 * time base, both ends inclusive. An empty window has {@link #count()} zero and reports
 * {@link Double#NaN} for mean, min, max and every percentile, so it is never mistaken for a
 * window of zero-valued samples. Percentiles are nearest-rank (see {@link RollingWindow}).
 */
public interface WindowSnapshot {

  /** Samples in the interval; exact. */
  long count();

  /** Sum of the samples in the interval; exact. */
  long sum();

  /** Samples rejected as out of range in the interval. */
  long rejected();

  /** {@code sum / count}, or NaN when empty. */
  default double mean() {
    return count() == 0 ? Double.NaN : (double) sum() / count();
  }

  /** The smallest sample, exact, or NaN when empty. */
  double min();

  /** The largest sample, exact, or NaN when empty. */
  double max();

  /**
   * The nearest-rank value at {@code percentile} (0 to 100): the {@code ceil(p/100 * count)}-th
   * smallest sample, within the window's precision; NaN when empty.
   *
   * @throws IllegalArgumentException if percentile is outside 0..100 or NaN
   */
  double valueAtPercentile(double percentile);

  /** First instant of the covered interval, inclusive, in the window's time base (nanoseconds). */
  long startNanos();

  /** Last instant of the covered interval, inclusive (the time the snapshot was taken). */
  long endNanos();

  /** Whether no sample fell in the interval. */
  default boolean isEmpty() {
    return count() == 0;
  }
}
