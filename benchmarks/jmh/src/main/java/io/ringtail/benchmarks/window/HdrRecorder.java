package io.ringtail.benchmarks.window;

import org.HdrHistogram.Recorder;

/** The floor: wait-free recording, no window; P95 reads everything recorded so far. */
final class HdrRecorder implements Contender {
  private final Recorder recorder = new Recorder(1, HIGHEST, 2);
  private final org.HdrHistogram.Histogram accumulated =
      new org.HdrHistogram.Histogram(1, HIGHEST, 2);
  private org.HdrHistogram.Histogram interval;

  @Override
  public void record(long nanos) {
    recorder.recordValue(nanos);
  }

  @Override
  public synchronized double p95() {
    interval = recorder.getIntervalHistogram(interval);
    accumulated.add(interval);
    return accumulated.getValueAtPercentile(95);
  }

  @Override
  public Object root() {
    return recorder;
  }
}
