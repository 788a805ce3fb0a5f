package io.ringtail.benchmarks.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.spring.observation.ObservationWindows;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * An observation handler's work per HTTP request: {@code onStart}, then {@code onStop} (the handler
 * reads the clock, resolves the key values to its key or meter, and records), every thread on one
 * endpoint ({@code GET /orders/{id} 200}: the contended case of a hot endpoint).
 *
 * <ul>
 *   <li>{@code RINGTAIL}: the starter's {@link ObservationWindows} (in-process windows, the
 *       starter's defaults: 1 minute in 12 buckets).
 *   <li>{@code MICROMETER}: Micrometer's own {@link DefaultMeterObservationHandler} on a {@link
 *       SimpleMeterRegistry} (a timer and a long-task timer per request, as Spring Boot registers
 *       it).
 *   <li>{@code NONE}: no handler: the floor of building the context below.
 * </ul>
 *
 * {@code context}: {@code FRESH} builds a new context with Spring MVC's five low-cardinality key
 * values per request (as a request does; its cost is the {@code NONE} row), {@code REUSED} keeps
 * one per thread, so that what the handler itself allocates shows alone in {@code -prof gc}.
 *
 * <p>Throughput mode: on a machine with fewer cores than threads, time per operation would count
 * the threads' waits for a core; total operations per second do not. A JMH state per thread.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar ObservationBenchmark -t 1 -prof
 * gc}, then {@code -t 8}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class ObservationBenchmark {
  /** The handlers compared. */
  public enum Handler {
    RINGTAIL,
    MICROMETER,
    NONE
  }

  /** Whether each request builds its context. */
  public enum Context {
    FRESH,
    REUSED
  }

  /** The handler every thread shares. */
  @State(Scope.Benchmark)
  public static class Shared {
    @Param({"RINGTAIL", "MICROMETER", "NONE"})
    public Handler handler;

    ObservationHandler<Observation.Context> chosen;
    private ObservationWindows windows;

    @Setup(Level.Trial)
    public void setUp() {
      switch (handler) {
        case RINGTAIL -> {
          windows =
              new ObservationWindows(
                  List.of("http.server.requests"),
                  Set.of("exception", "error"),
                  WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build(),
                  500,
                  List.of(0.5, 0.95, 0.99),
                  TimeSource.system());
          chosen = windows;
        }
        case MICROMETER -> chosen = new DefaultMeterObservationHandler(new SimpleMeterRegistry());
        case NONE -> chosen = null;
        default -> throw new IllegalStateException(handler.name());
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      if (windows != null) {
        windows.close();
      }
    }
  }

  /** A thread's request context. */
  @State(Scope.Thread)
  public static class Request {
    @Param({"FRESH", "REUSED"})
    public Context context;

    private Observation.Context reused;

    @Setup(Level.Trial)
    public void setUp() {
      reused = build();
    }

    Observation.Context next() {
      return context == Context.FRESH ? build() : reused;
    }

    private static Observation.Context build() {
      Observation.Context c = new Observation.Context();
      c.setName("http.server.requests");
      c.addLowCardinalityKeyValue(KeyValue.of("exception", "none"));
      c.addLowCardinalityKeyValue(KeyValue.of("method", "GET"));
      c.addLowCardinalityKeyValue(KeyValue.of("outcome", "SUCCESS"));
      c.addLowCardinalityKeyValue(KeyValue.of("status", "200"));
      c.addLowCardinalityKeyValue(KeyValue.of("uri", "/orders/{id}"));
      return c;
    }
  }

  @Benchmark
  public Observation.Context request(Shared shared, Request request) {
    Observation.Context c = request.next();
    ObservationHandler<Observation.Context> h = shared.chosen;
    if (h != null) {
      h.onStart(c);
      h.onStop(c);
    }
    return c;
  }
}
