package io.ringtail.spring.slo;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.spring.ObservationWindows;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a service level declared by {@code ringtail.slo.*} adds to an HTTP request's observation
 * handling: {@code onStart} then {@code onStop} of the handlers, one thread, on {@code GET
 * /orders/{id} 200}.
 *
 * <ul>
 *   <li>{@code WINDOWS}: the starter's observation windows alone ({@link ObservationWindows}, its
 *       defaults): the handling a request has anyway;
 *   <li>{@code WINDOWS_AND_SLO}: those and the SLO handler, with one service level on {@code
 *       /orders/**} of one latency (300 ms, 99 %) and one availability objective (99.9 %), the
 *       workbook's alerts: the SLO's cost is this minus {@code WINDOWS};
 *   <li>{@code SLO}: the SLO handler alone.
 * </ul>
 *
 * {@code context}: {@code REUSED} keeps one context per thread (what the handlers themselves cost
 * and allocate); {@code FRESH} builds one with Spring MVC's five key values per request, as a
 * request does.
 *
 * <p>In package {@code io.ringtail.spring.slo} to reach the package-private handler.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar SloHandlerBenchmark -f1 -wi 2 -i 3
 * -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@Threads(1)
public class SloHandlerBenchmark {
  /** The handlers of each request. */
  public enum Handlers {
    WINDOWS,
    WINDOWS_AND_SLO,
    SLO
  }

  /** Whether each request builds its context. */
  public enum Context {
    FRESH,
    REUSED
  }

  @Param({"WINDOWS", "WINDOWS_AND_SLO", "SLO"})
  public Handlers handlers;

  @Param({"REUSED", "FRESH"})
  public Context context;

  private ObservationWindows windows;
  private SloObservationHandler slo;
  private ServiceLevels levels;
  private Observation.Context reused;

  @Setup(Level.Trial)
  public void setUp() {
    if (handlers != Handlers.SLO) {
      windows =
          new ObservationWindows(
              List.of("http.server.requests"),
              Set.of("exception", "error"),
              WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build(),
              500,
              List.of(0.5, 0.95, 0.99),
              TimeSource.system());
    }
    if (handlers != Handlers.WINDOWS) {
      RingtailSloProperties.ServiceLevel checkout = new RingtailSloProperties.ServiceLevel();
      checkout.setPaths(List.of("/orders/**"));
      RingtailSloProperties.Objective fast = new RingtailSloProperties.Objective();
      fast.setThreshold(Duration.ofMillis(300));
      fast.setTarget(0.99);
      RingtailSloProperties.Objective available = new RingtailSloProperties.Objective();
      available.setTarget(0.999);
      checkout.getObjectives().put("fast", fast);
      checkout.getObjectives().put("available", available);
      RingtailSloProperties properties = new RingtailSloProperties();
      properties.getSlo().put("checkout", checkout);
      levels =
          new ServiceLevels(
              Declared.of(properties),
              io.ringtail.spring.slo.Scope.inProcess(TimeSource.system()),
              TimeSource.system(),
              event -> {});
      levels.serviceLevels();
      slo = new SloObservationHandler(levels);
    }
    reused = build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (windows != null) {
      windows.close();
    }
    if (levels != null) {
      levels.close();
    }
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

  @Benchmark
  public Observation.Context request() {
    Observation.Context c = context == Context.FRESH ? build() : reused;
    ObservationWindows w = windows;
    SloObservationHandler s = slo;
    if (w != null) {
      w.onStart(c);
    }
    if (s != null) {
      s.onStart(c);
    }
    if (w != null) {
      w.onStop(c);
    }
    if (s != null) {
      s.onStop(c);
    }
    return c;
  }
}
