package io.ringtail.benchmarks.window;

import io.ringtail.benchmarks.toolkit.Latencies;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Record cost: one latency per call into ONE shared instance per contender, at one thread ({@code
 * record1}) and two threads ({@code record2}); {@code -t N} runs any thread count. Values come from
 * a precomputed log-normal array ({@link Latencies}), each thread starting at its own offset.
 * {@code RINGTAIL_ROTATING} reads a fake clock that forces a bucket rotation every 1,024 records;
 * {@code RINGTAIL_RECORD_AT} passes a caller-held time, like HdrHistogram's {@code
 * Recorder.recordValue} which reads no clock; {@code RINGTAIL_ONE_STRIPE} starts every thread on
 * one shared stripe (threads whose ids collide), so it shows what remains of a collision once
 * threads have moved and stripes were added.
 *
 * <p>A JMH state shared by every benchmark thread (its contender is the shared instance under
 * test); each thread's {@link Values} cursor is its own.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar RecordBenchmark -prof gc} (one
 * contender: {@code -p contender=RINGTAIL}; more threads: {@code RecordBenchmark.record1 -t 4}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RecordBenchmark {
  @Param({
    "RINGTAIL",
    "RINGTAIL_RECORD_AT",
    "RINGTAIL_ROTATING",
    "RINGTAIL_ONE_STRIPE",
    "RINGTAIL_COMPACT",
    "HDR_RECORDER",
    "MICROMETER",
    "DROPWIZARD",
    "ROLLING_METRICS",
    "LONG_ADDER",
    "NANO_TIME"
  })
  public Contender.Kind contender;

  private Contender instance;
  private final AtomicInteger threadOffsets = new AtomicInteger();

  @Setup
  public void setUp() {
    instance = Contender.create(contender, null);
  }

  /** Each thread's own walk through the shared latencies. */
  @State(Scope.Thread)
  public static class Values {
    Latencies.Cursor cursor;

    @Setup
    public void setUp(RecordBenchmark shared) {
      cursor = new Latencies.Cursor(shared.threadOffsets.getAndIncrement() * 7919);
    }
  }

  @Benchmark
  @Threads(1)
  public void record1(Values values) {
    instance.record(values.cursor.next());
  }

  @Benchmark
  @Threads(2)
  public void record2(Values values) {
    instance.record(values.cursor.next());
  }
}
