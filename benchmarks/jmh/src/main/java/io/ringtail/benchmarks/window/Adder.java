package io.ringtail.benchmarks.window;

import java.util.concurrent.atomic.LongAdder;

/** The floor of any counting: {@code LongAdder.increment}, no percentiles. */
final class Adder implements Contender {
  private final LongAdder adder = new LongAdder();

  @Override
  public void record(long nanos) {
    adder.increment();
  }

  @Override
  public double p95() {
    return Double.NaN;
  }

  @Override
  public Object root() {
    return adder;
  }
}
