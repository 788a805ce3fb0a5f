package io.ringtail.benchmarks.window;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import io.ringtail.benchmarks.toolkit.SimClock;
import java.util.concurrent.TimeUnit;

/** Dropwizard's histogram over a {@code SlidingTimeWindowArrayReservoir} of 60 s. */
final class DropwizardSlidingWindow implements Contender {
  private final Histogram histogram;

  DropwizardSlidingWindow(SimClock clock) {
    com.codahale.metrics.Clock dropwizardClock =
        clock == null
            ? com.codahale.metrics.Clock.defaultClock()
            : new com.codahale.metrics.Clock() {
              @Override
              public long getTick() {
                return clock.nanoTime();
              }

              @Override
              public long getTime() {
                return clock.wallMillis();
              }
            };
    this.histogram =
        new Histogram(
            new SlidingTimeWindowArrayReservoir(
                WINDOW.toSeconds(), TimeUnit.SECONDS, dropwizardClock));
  }

  @Override
  public void record(long nanos) {
    histogram.update(nanos);
  }

  @Override
  public double p95() {
    return histogram.getSnapshot().get95thPercentile();
  }

  @Override
  public Object root() {
    return histogram;
  }
}
