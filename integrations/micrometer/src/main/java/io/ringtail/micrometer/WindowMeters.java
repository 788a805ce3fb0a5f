package io.ringtail.micrometer;

/**
 * The meters a binding registers per window ({@link WindowMetrics.Builder#meters}, {@link
 * KeyedWindowMetrics.Builder#meters}): both by default. A fleet-wide window shows why one would
 * register only part: each process exports its own totals (counters a monitoring system sums over
 * the fleet) while the fleet's statistics are exported once, by one process.
 */
public enum WindowMeters {
  /**
   * The rolling window's statistics, as gauges: samples, rejected, sum, mean, min, max and the
   * percentiles.
   */
  STATISTICS,

  /**
   * The window's totals since it was created, as counters: {@code recorded}, {@code rejections} and
   * {@code recorded.sum}.
   */
  TOTALS
}
