package io.ringtail.examples.dashboard;

import io.ringtail.WindowSnapshot;

/**
 * One window's statistics at one instant, latencies in milliseconds (NaN when the window is empty).
 * Immutable.
 */
record WindowStats(
    long count,
    double meanMillis,
    double p95Millis,
    double p99Millis,
    double minMillis,
    double maxMillis,
    long rejected) {

  private static final double NANOS_PER_MILLI = 1e6;

  static WindowStats of(WindowSnapshot s) {
    return new WindowStats(
        s.count(),
        s.mean() / NANOS_PER_MILLI,
        s.valueAtPercentile(95) / NANOS_PER_MILLI,
        s.valueAtPercentile(99) / NANOS_PER_MILLI,
        s.min() / NANOS_PER_MILLI,
        s.max() / NANOS_PER_MILLI,
        s.rejected());
  }
}
