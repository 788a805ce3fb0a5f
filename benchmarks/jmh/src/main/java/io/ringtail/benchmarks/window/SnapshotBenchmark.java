package io.ringtail.benchmarks.window;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
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
 * {@code snapshot().valueAtPercentile(95)} of a default 60 s window holding {@code samples} samples
 * spread over 50 s on an injected clock that then stands still.
 *
 * <ul>
 *   <li>{@code LATENCIES}: the log-normal latencies of {@link Latencies} (median 1 ms), whose slots
 *       are dense between min and max.
 *   <li>{@code WIDE}: the same, plus one sample of 1 µs and one of 1 h, so the range spans almost
 *       every slot of the layout while most of them stay empty.
 *   <li>{@code TWO_FAR_APART}: only samples of 1 µs and 1 h, alternately: two slots.
 * </ul>
 *
 * {@code window}: the striped window ({@code RollingWindow.create}) or the compact one.
 *
 * <p>A JMH state read by one benchmark thread.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar SnapshotBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SnapshotBenchmark {
  /** What the window holds. */
  public enum Shape {
    LATENCIES,
    WIDE,
    TWO_FAR_APART
  }

  /** Which window. */
  public enum Window {
    STRIPED,
    COMPACT
  }

  static final long MICROSECOND = 1_000;
  static final long HOUR = 3_600_000_000_000L;

  @Param({"LATENCIES", "WIDE", "TWO_FAR_APART"})
  public Shape shape;

  @Param({"1000", "100000", "1000000"})
  public int samples;

  @Param({"STRIPED", "COMPACT"})
  public Window window;

  private RollingWindow instance;

  @Setup
  public void setUp() {
    SimClock clock = new SimClock();
    clock.set(TimeUnit.SECONDS.toNanos(1));
    long start = clock.nanoTime();
    instance =
        window == Window.STRIPED
            ? RollingWindow.create(WindowConfig.defaults(), clock)
            : RollingWindow.createCompact(WindowConfig.defaults(), clock);
    Latencies.Cursor values = new Latencies.Cursor(0);
    for (int i = 0; i < samples; i++) {
      clock.set(start + ReadBenchmark.FILL_SPAN_NANOS * i / samples);
      if (shape == Shape.TWO_FAR_APART) {
        instance.record(i % 2 == 0 ? MICROSECOND : HOUR);
      } else {
        instance.record(values.next());
      }
    }
    if (shape == Shape.WIDE) {
      instance.record(MICROSECOND);
      instance.record(HOUR);
    }
    if (!(p95() > 0)) {
      throw new IllegalStateException(shape + " read P95 " + p95());
    }
  }

  @Benchmark
  public double p95() {
    return instance.snapshot().valueAtPercentile(95);
  }
}
