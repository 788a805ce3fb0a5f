package io.ringtail.benchmarks.window;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;

/** Ringtail's in-process window (any kind and configuration), recording at its clock's time. */
final class RingtailRecord implements Contender {
  private final RollingWindow window;

  RingtailRecord(WindowConfig config, TimeSource timeSource) {
    this(RollingWindow.create(config, timeSource));
  }

  RingtailRecord(RollingWindow window) {
    this.window = window;
  }

  @Override
  public void record(long nanos) {
    window.record(nanos);
  }

  @Override
  public double p95() {
    return window.snapshot().valueAtPercentile(95);
  }

  @Override
  public Object root() {
    return window;
  }

  RollingWindow window() {
    return window;
  }
}
