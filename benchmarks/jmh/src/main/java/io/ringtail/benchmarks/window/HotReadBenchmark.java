package io.ringtail.benchmarks.window;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.benchmarks.toolkit.SimClock;
import java.time.Duration;
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
 * A P95 read on the request path (an adaptive timeout, a hedge, a load-shedding check), from a 60 s
 * window filled with 600,000 latencies (10,000/s) on an injected clock that then stands still.
 * {@code read}: the percentile alone; {@code recordThenRead}: one record, then the read, as a
 * request that records its own latency would (Micrometer recomputes its percentiles after a record,
 * so this is the fair comparison for it).
 *
 * <ul>
 *   <li>{@code RINGTAIL_RECENT}: {@code window.recentSnapshot().valueAtPercentile(95)}.
 *   <li>{@code RINGTAIL_SNAPSHOT}: {@code window.snapshot().valueAtPercentile(95)}.
 *   <li>{@code MICROMETER_GAUGE}: {@code value()} of the {@code .percentile} gauge (phi 0.95) a
 *       Micrometer timer with {@code publishPercentiles(0.95)} registers, 60 s expiry.
 *   <li>{@code VOLATILE_FIELD}: one volatile read, the floor.
 * </ul>
 *
 * The recent snapshot is rebuilt once per bucket (a snapshot's cost, microseconds, once a second at
 * the defaults): with a standing clock this benchmark does not see that rebuild.
 *
 * <p>A JMH state read by one benchmark thread.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar HotReadBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HotReadBenchmark {
  /** The readers compared. */
  public enum Reader {
    RINGTAIL_RECENT,
    RINGTAIL_SNAPSHOT,
    MICROMETER_GAUGE,
    VOLATILE_FIELD
  }

  @Param({"RINGTAIL_RECENT", "RINGTAIL_SNAPSHOT", "MICROMETER_GAUGE", "VOLATILE_FIELD"})
  public Reader reader;

  private RollingWindow window;
  private Timer timer;
  private Gauge gauge;
  private volatile double field = 1.0;
  private Latencies.Cursor values;

  @Setup
  public void setUp() {
    SimClock clock = new SimClock();
    clock.set(TimeUnit.SECONDS.toNanos(1));
    long start = clock.nanoTime();
    window = RollingWindow.create(WindowConfig.defaults(), clock);
    SimpleMeterRegistry registry =
        new SimpleMeterRegistry(
            SimpleConfig.DEFAULT,
            new Clock() {
              @Override
              public long wallTime() {
                return clock.wallMillis();
              }

              @Override
              public long monotonicTime() {
                return clock.nanoTime();
              }
            });
    timer =
        Timer.builder("bench.latency")
            .publishPercentiles(0.95)
            .distributionStatisticExpiry(Duration.ofSeconds(60))
            .register(registry);
    gauge = registry.get("bench.latency.percentile").tag("phi", "0.95").gauge();
    values = new Latencies.Cursor(0);
    int samples = 600_000;
    for (int i = 0; i < samples; i++) {
      clock.set(start + TimeUnit.SECONDS.toNanos(59) * i / samples);
      long v = values.next();
      window.record(v);
      timer.record(v, TimeUnit.NANOSECONDS);
    }
    if (!(read() > 0)) {
      throw new IllegalStateException(reader + " read P95 " + read());
    }
  }

  @Benchmark
  public double read() {
    switch (reader) {
      case RINGTAIL_RECENT:
        return window.recentSnapshot().valueAtPercentile(95);
      case RINGTAIL_SNAPSHOT:
        return window.snapshot().valueAtPercentile(95);
      case MICROMETER_GAUGE:
        return gauge.value();
      default:
        return field;
    }
  }

  @Benchmark
  public double recordThenRead() {
    long v = values.next();
    switch (reader) {
      case MICROMETER_GAUGE:
        timer.record(v, TimeUnit.NANOSECONDS);
        break;
      case VOLATILE_FIELD:
        field = v;
        break;
      default:
        window.record(v);
    }
    return read();
  }
}
