package io.ringtail.benchmarks.window;

/** The cost of reading the clock once, the floor of recording a latency; no percentiles. */
final class NanoTime implements Contender {
  private long never;

  @Override
  public void record(long nanos) {
    long t = System.nanoTime();
    if (t == Long.MIN_VALUE) {
      never = t;
    }
  }

  @Override
  public double p95() {
    return Double.NaN;
  }

  @Override
  public Object root() {
    return this;
  }
}
