package io.ringtail.benchmarks.window;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.SimClock;

/** Ringtail's window fed by {@code recordAt}, with the time read from the simulated clock. */
final class RingtailRecordAtClock implements Contender {
  private final SimClock clock;
  private final RollingWindow window;

  RingtailRecordAtClock(SimClock clock) {
    this.clock = clock;
    this.window = RollingWindow.create(WindowConfig.defaults(), clock);
  }

  @Override
  public void record(long nanos) {
    window.recordAt(nanos, clock.nanoTime());
  }

  @Override
  public double p95() {
    return window.snapshot().valueAtPercentile(95);
  }

  @Override
  public Object root() {
    return window;
  }
}
