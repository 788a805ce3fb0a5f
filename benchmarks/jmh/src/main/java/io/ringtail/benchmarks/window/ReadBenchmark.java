package io.ringtail.benchmarks.window;

import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.benchmarks.toolkit.SimClock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * P95 read cost: take a snapshot and read its 95th percentile from a window holding {@code samples}
 * latencies, recorded at evenly spaced times across the first 50 s of a 60 s window on an injected
 * clock that then stands still (so nothing expires while measuring). Each read follows one new
 * record, as in production where samples arrive between reads: without it Micrometer would serve
 * percentiles it cached at the previous read. The record costs tens of nanoseconds against reads of
 * microseconds. HdrHistogram's Recorder has no window: its read is an interval flip plus a
 * cumulative merge.
 *
 * <p>A JMH state read by one benchmark thread.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar ReadBenchmark} (e.g. {@code -p
 * samples=1000,1000000 -p contender=RINGTAIL,MICROMETER}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReadBenchmark {
  static final long FILL_SPAN_NANOS = TimeUnit.SECONDS.toNanos(50);

  @Param({
    "RINGTAIL",
    "RINGTAIL_COMPACT",
    "HDR_RECORDER",
    "MICROMETER",
    "MICROMETER_2_DIGITS",
    "DROPWIZARD",
    "ROLLING_METRICS"
  })
  public Contender.Kind contender;

  @Param({"1000", "10000", "100000", "1000000"})
  public int samples;

  private Contender instance;
  private Latencies.Cursor values;

  @Setup
  public void setUp() {
    SimClock clock = new SimClock();
    clock.set(TimeUnit.SECONDS.toNanos(1));
    long start = clock.nanoTime();
    instance = Contender.create(contender, clock);
    values = new Latencies.Cursor(0);
    for (int i = 0; i < samples; i++) {
      clock.set(start + FILL_SPAN_NANOS * i / samples);
      instance.record(values.next());
    }
    double p95 = instance.p95();
    if (!(p95 > 0)) {
      throw new IllegalStateException(
          contender + " read P95 " + p95 + " after " + samples + " samples");
    }
  }

  @Benchmark
  public double p95() {
    instance.record(values.next());
    return instance.p95();
  }
}
