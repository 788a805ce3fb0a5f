package io.ringtail.examples.dashboard;

import io.ringtail.RollingWindow;

/**
 * INTERIM minimal path until {@code io.ringtail.alert} lands: fires when the window's P95 goes
 * above the target and resolves once it falls to 80 % of the target or the window empties.
 * Driven by one thread.
 */
final class InterimP95Alert implements AlertMonitor {
  private final RollingWindow window;
  private final double targetNanos;
  private final String windowLabel;
  private boolean firing;

  InterimP95Alert(RollingWindow window, String windowLabel, double targetMillis) {
    this.window = window;
    this.windowLabel = windowLabel;
    this.targetNanos = targetMillis * 1e6;
  }

  @Override
  public String description() {
    return "P95 of the last " + windowLabel + " above " + Format.millis(targetNanos / 1e6);
  }

  @Override
  public boolean evaluate(long nowNanos) {
    double p95 = window.snapshot().valueAtPercentile(95);
    if (firing) {
      firing = !(Double.isNaN(p95) || p95 <= 0.8 * targetNanos);
    } else {
      firing = p95 > targetNanos;
    }
    return firing;
  }

  @Override
  public String source() {
    return "interim rule in the example (io.ringtail.alert not merged yet)";
  }
}
