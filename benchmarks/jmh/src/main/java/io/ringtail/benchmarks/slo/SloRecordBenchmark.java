package io.ringtail.benchmarks.slo;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import java.time.Duration;
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
 * What a service level adds to a request: per call, one request's latency recorded where a service
 * would record it, into ONE shared instance, at one thread ({@code record1}) and two ({@code
 * record2}). Each request reads the system clock once, as a request does, and passes the reading
 * on.
 *
 * <ul>
 *   <li>{@code WINDOW}: the observation window alone ({@code RollingWindow} defaults, {@code
 *       recordAt}): the floor;
 *   <li>{@code WINDOW_AND_SLO}: the window and a service level of one latency objective (300 ms, 99
 *       %) and one availability objective (99.9 %) with the workbook's alerts ({@code
 *       ServiceLevel.recordAt}, one failed request in 1,024): the SLO's cost is this minus {@code
 *       WINDOW};
 *   <li>{@code SLO}: the service level alone.
 * </ul>
 *
 * Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar SloRecordBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SloRecordBenchmark {
  /** One latency and one availability objective, 30 days, the workbook's alerts. */
  public static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .availability("available", 0.999)
          .build();

  /** What each call records. */
  public enum Path {
    WINDOW,
    WINDOW_AND_SLO,
    SLO
  }

  @Param({"WINDOW", "WINDOW_AND_SLO", "SLO"})
  public Path path;

  private RollingWindow window;
  private ServiceLevel slo;
  private final AtomicInteger threadOffsets = new AtomicInteger();

  @Setup
  public void setUp() {
    window = RollingWindow.create(WindowConfig.defaults());
    slo = ServiceLevel.inProcess(CONFIG);
  }

  /** Each thread's own walk through the shared latencies. */
  @State(Scope.Thread)
  public static class Requests {
    Latencies.Cursor cursor;

    @Setup
    public void setUp(SloRecordBenchmark shared) {
      cursor = new Latencies.Cursor(shared.threadOffsets.getAndIncrement() * 7919);
    }
  }

  private void request(Requests requests) {
    long latency = requests.cursor.next();
    long now = System.nanoTime();
    switch (path) {
      case WINDOW -> window.recordAt(latency, now);
      case WINDOW_AND_SLO -> {
        window.recordAt(latency, now);
        slo.recordAt(latency, (latency & 1023) == 0, now);
      }
      case SLO -> slo.recordAt(latency, (latency & 1023) == 0, now);
    }
  }

  @Benchmark
  @Threads(1)
  public void record1(Requests requests) {
    request(requests);
  }

  @Benchmark
  @Threads(2)
  public void record2(Requests requests) {
    request(requests);
  }
}
