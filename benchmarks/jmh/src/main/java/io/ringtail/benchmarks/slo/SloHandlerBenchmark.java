package io.ringtail.benchmarks.slo;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.spring.RingtailAutoConfiguration;
import io.ringtail.spring.observation.RingtailObservationAutoConfiguration;
import io.ringtail.spring.slo.RingtailSloAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
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
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What a service level declared by {@code ringtail.slo.*} adds to an HTTP request's observation
 * handling: {@code onStart} then {@code onStop} of every observation handler the starter's
 * auto-configurations define (as Micrometer's registry calls them), one thread, on {@code GET
 * /orders/{id} 200}. The handlers come from a Spring context of those auto-configurations: public
 * API only.
 *
 * <ul>
 *   <li>{@code WINDOWS}: the observation windows alone (the starter's defaults): the handling a
 *       request has anyway;
 *   <li>{@code WINDOWS_AND_SLO}: those and one service level on {@code /orders/**} of one latency
 *       (300 ms, 99 %) and one availability objective (99.9 %), the workbook's alerts; the windows
 *       time the request once for both ({@code SharedTiming}): the SLO's cost is this minus {@code
 *       WINDOWS};
 *   <li>{@code SLO_ALONE}: the same service level with the observation windows off, its own handler
 *       timing the request.
 * </ul>
 *
 * {@code context}: {@code REUSED} keeps one context per thread (what the handlers themselves cost
 * and allocate); {@code FRESH} builds one with Spring MVC's five key values per request, as a
 * request does.
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
    SLO_ALONE
  }

  /** Whether each request builds its context. */
  public enum Context {
    FRESH,
    REUSED
  }

  @Param({"WINDOWS", "WINDOWS_AND_SLO", "SLO_ALONE"})
  public Handlers handlers;

  @Param({"REUSED", "FRESH"})
  public Context context;

  private static final String[] SLO = {
    "ringtail.slo.checkout.paths=/orders/**",
    "ringtail.slo.checkout.objectives.fast.threshold=300ms",
    "ringtail.slo.checkout.objectives.fast.target=0.99",
    "ringtail.slo.checkout.objectives.available.target=0.999",
  };

  /** The starter's auto-configurations that handle observations, and nothing else. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    RingtailAutoConfiguration.class,
    RingtailObservationAutoConfiguration.class,
    RingtailSloAutoConfiguration.class
  })
  static class Starter {}

  private ConfigurableApplicationContext app;
  private ObservationHandler<Observation.Context>[] chain;
  private Observation.Context reused;

  @Setup(Level.Trial)
  @SuppressWarnings("unchecked")
  public void setUp() {
    List<String> properties = new ArrayList<>();
    properties.add("spring.main.banner-mode=off");
    properties.add("logging.level.root=warn");
    if (handlers != Handlers.WINDOWS) {
      properties.addAll(List.of(SLO));
    }
    if (handlers == Handlers.SLO_ALONE) {
      properties.add("ringtail.observations.enabled=false");
    }
    app =
        new SpringApplicationBuilder(Starter.class)
            .web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
    chain =
        app.getBeansOfType(ObservationHandler.class).values().stream()
            .toArray(ObservationHandler[]::new);
    if (chain.length != (handlers == Handlers.WINDOWS_AND_SLO ? 2 : 1)) {
      throw new IllegalStateException("unexpected observation handlers: " + List.of(chain));
    }
    reused = build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    app.close();
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
    ObservationHandler<Observation.Context>[] handlers = chain;
    int n = 0;
    ObservationHandler<Observation.Context> first = null;
    ObservationHandler<Observation.Context> second = null;
    for (ObservationHandler<Observation.Context> h : handlers) {
      if (h.supportsContext(c)) { // as the registry chooses a request's handlers
        if (n++ == 0) {
          first = h;
        } else {
          second = h;
        }
      }
    }
    if (first != null) {
      first.onStart(c);
    }
    if (second != null) {
      second.onStart(c);
    }
    if (second != null) {
      second.onStop(c);
    }
    if (first != null) {
      first.onStop(c);
    }
    return c;
  }
}
