package io.ringtail.benchmarks.window;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;

/** recordAt with one reading taken up front: the caller already holds its end-of-request time. */
final class RingtailRecordAtFixed implements Contender {
  private final RollingWindow window = RollingWindow.create(WindowConfig.defaults());
  private final long at = window.timeSource().nanoTime();

  @Override
  public void record(long nanos) {
    window.recordAt(nanos, at);
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
