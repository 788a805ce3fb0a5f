package io.ringtail.examples.dashboard;

import java.time.Duration;

/**
 * The schedule of the simulated service: normal for the first 35 % of the run, degraded until 65 %,
 * recovered for the rest. Immutable and thread-safe.
 */
final class SimulatedService {
  static final double DEGRADED_FROM = 0.35;
  static final double RECOVERED_FROM = 0.65;

  private final long durationNanos;

  SimulatedService(Duration duration) {
    this.durationNanos = duration.toNanos();
  }

  Regime regimeAt(long elapsedNanos) {
    double fraction = (double) elapsedNanos / durationNanos;
    if (fraction < DEGRADED_FROM) {
      return Regime.NORMAL;
    }
    return fraction < RECOVERED_FROM ? Regime.DEGRADED : Regime.RECOVERED;
  }
}
