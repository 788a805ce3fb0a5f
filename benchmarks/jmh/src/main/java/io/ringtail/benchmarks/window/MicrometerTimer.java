package io.ringtail.benchmarks.window;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.benchmarks.toolkit.SimClock;
import java.util.concurrent.TimeUnit;

/** Micrometer's Timer in a simple registry, its P95 published over a 60 s expiry. */
final class MicrometerTimer implements Contender {
  private final Timer timer;

  MicrometerTimer(SimClock clock, int precision) {
    Clock micrometerClock =
        clock == null
            ? Clock.SYSTEM
            : new Clock() {
              @Override
              public long wallTime() {
                return clock.wallMillis();
              }

              @Override
              public long monotonicTime() {
                return clock.nanoTime();
              }
            };
    SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, micrometerClock);
    this.timer =
        Timer.builder("bench.latency")
            .publishPercentiles(0.95)
            .percentilePrecision(precision)
            .distributionStatisticExpiry(WINDOW)
            .register(registry);
  }

  @Override
  public void record(long nanos) {
    timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public double p95() {
    return timer.takeSnapshot().percentileValues()[0].value(TimeUnit.NANOSECONDS);
  }

  @Override
  public Object root() {
    return timer;
  }
}
