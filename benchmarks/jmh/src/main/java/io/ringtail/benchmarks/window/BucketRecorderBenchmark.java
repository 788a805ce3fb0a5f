package io.ringtail.benchmarks.window;

import io.ringtail.BucketRecorder;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Latencies;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * Record cost of a fleet window's per-key recorder: {@code BucketRecorder.create} (slot tables)
 * against {@code BucketRecorder.dense} (two dense arrays per stripe), one {@code recordAt} per call
 * into ONE shared recorder, at one thread ({@code record1}) and two ({@code record2}), at the
 * default configuration. {@code HUNDRED} draws from 100 distinct values (the memory target's key),
 * {@code LOG_NORMAL} from the shared log-normal latencies (about a thousand distinct slots at two
 * digits). The recorder is drained between iterations, as a publisher drains it between rounds, so
 * each iteration records into tables sized by the drains before.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar BucketRecorderBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BucketRecorderBenchmark {
  /** The recorder under test. */
  public enum Shape {
    COMPACT,
    DENSE
  }

  /** What the recorded values look like. */
  public enum Values {
    HUNDRED,
    LOG_NORMAL
  }

  @Param({"COMPACT", "DENSE"})
  public Shape shape;

  @Param({"HUNDRED", "LOG_NORMAL"})
  public Values values;

  private static final long NOW = 1_000_000_000_000L;

  private BucketRecorder recorder;
  private long[] samples;
  private final AtomicInteger threadOffsets = new AtomicInteger();

  @Setup
  public void setUp() {
    ManualTimeSource time = new ManualTimeSource(NOW);
    WindowConfig config = WindowConfig.defaults();
    recorder =
        shape == Shape.COMPACT
            ? BucketRecorder.create(config, time)
            : BucketRecorder.dense(config, time);
    if (values == Values.HUNDRED) {
      long[] hundred = Latencies.logNormal(100, 1_000_000, 1.0, 7);
      SplittableRandom random = new SplittableRandom(11);
      samples = new long[Latencies.SIZE];
      for (int i = 0; i < samples.length; i++) {
        samples[i] = hundred[random.nextInt(hundred.length)];
      }
    } else {
      samples = Latencies.logNormal(Latencies.SIZE, 1_000_000, 1.0, 42);
    }
  }

  /** Between iterations, as the publisher between rounds. */
  @Setup(Level.Iteration)
  public void drain() {
    recorder.drain();
  }

  /** Each thread's own walk through the samples. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    @Setup
    public void setUp(BucketRecorderBenchmark shared) {
      next = shared.threadOffsets.getAndIncrement() * 7919;
    }
  }

  @Benchmark
  @Threads(1)
  public void record1(Cursor cursor) {
    record(cursor);
  }

  @Benchmark
  @Threads(2)
  public void record2(Cursor cursor) {
    record(cursor);
  }

  private void record(Cursor cursor) {
    int i = cursor.next++ & (Latencies.SIZE - 1);
    recorder.recordAt(samples[i], NOW);
  }
}
