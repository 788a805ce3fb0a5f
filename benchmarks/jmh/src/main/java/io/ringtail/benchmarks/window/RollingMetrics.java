package io.ringtail.benchmarks.window;

import com.codahale.metrics.Histogram;
import com.github.rollingmetrics.histogram.HdrBuilder;
import io.ringtail.benchmarks.toolkit.SimClock;

/**
 * Rotation runs on the recording thread (a direct executor), so injected time drives it
 * deterministically.
 */
final class RollingMetrics implements Contender {
  private final Histogram histogram;

  RollingMetrics(SimClock clock) {
    HdrBuilder builder = clock == null ? new HdrBuilder() : new HdrBuilder(clock::wallMillis);
    this.histogram =
        builder
            .resetReservoirPeriodicallyByChunks(WINDOW, 6)
            .withBackgroundExecutor(Runnable::run)
            .buildHistogram();
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
