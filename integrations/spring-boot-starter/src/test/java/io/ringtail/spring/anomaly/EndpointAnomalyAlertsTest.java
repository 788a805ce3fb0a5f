package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.Await;
import io.ringtail.spring.observation.ObservationWindows;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A real web application on a random port with {@code ringtail.anomaly.enabled=true}, three
 * endpoints served over real HTTP: after a quiet warm-up one endpoint slows down (or starts
 * failing), and exactly that endpoint's measure fires within {@value #FIRE_WITHIN} evaluations,
 * once, and resolves within {@value #RESOLVE_WITHIN} evaluations of its recovery.
 *
 * <p>Time is a {@link ManualTimeSource}: the observation windows read it, each handler advances it
 * by its endpoint's latency (so a slow endpoint is slow without anyone waiting), and each step
 * advances it past the window, so every evaluation sees one step's requests. Evaluations are driven
 * by the test: it replaces the scheduler bean.
 */
class EndpointAnomalyAlertsTest {
  static final int FIRE_WITHIN = 2;
  static final int RESOLVE_WITHIN = 2;
  private static final String OBSERVATION = "http.server.requests";
  private static final List<String> PATHS = List.of("/orders/7", "/search", "/users/3");
  private static final List<String> URIS = List.of("/orders/{id}", "/search", "/users/{id}");
  private static final int REQUESTS = 8;
  private static final int WARM_UP = 20;
  private static final int QUIET_STEPS = 40;

  private final HttpClient http = HttpClient.newHttpClient();
  private ConfigurableApplicationContext app;
  private int step;

  /** Each endpoint's latency and whether it fails, as the test sets them. */
  static final class Behaviour {
    final Map<String, Duration> latency = new ConcurrentHashMap<>();
    final Set<String> failing = ConcurrentHashMap.newKeySet();
  }

  /** The events the application published. */
  static final class Events {
    final List<EndpointAnomalyEvent> seen = new CopyOnWriteArrayList<>();

    @EventListener
    void on(EndpointAnomalyEvent event) {
      seen.add(event);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    private final ManualTimeSource clock;
    private final Behaviour behaviour;

    App(ManualTimeSource clock, Behaviour behaviour) {
      this.clock = clock;
      this.behaviour = behaviour;
    }

    @Bean
    static ManualTimeSource clock() {
      return new ManualTimeSource(1_000_000_000_000L);
    }

    @Bean
    static Behaviour behaviour() {
      return new Behaviour();
    }

    @Bean
    static Events events() {
      return new Events();
    }

    /** The starter's observation windows, on the test's clock. */
    @Bean
    static ObservationWindows ringtailObservationWindows(ManualTimeSource clock) {
      return new ObservationWindows(
          List.of(OBSERVATION),
          Set.of("exception", "error"),
          WindowConfig.builder().length(Duration.ofMinutes(1)).buckets(12).build(),
          500,
          List.of(0.95),
          clock);
    }

    /** Replaces the starter's scheduler: the test triggers each evaluation. */
    @Bean(RingtailAnomalyAutoConfiguration.SCHEDULER)
    static String manualEvaluations() {
      return "evaluated by the test";
    }

    private ResponseEntity<String> serve(String endpoint) {
      clock.advance(behaviour.latency.get(endpoint));
      return behaviour.failing.contains(endpoint)
          ? ResponseEntity.status(500).body("failed")
          : ResponseEntity.ok(endpoint);
    }

    @GetMapping("/orders/{id}")
    ResponseEntity<String> order(@PathVariable("id") String id) {
      return serve("/orders/7");
    }

    @GetMapping("/search")
    ResponseEntity<String> search() {
      return serve("/search");
    }

    @GetMapping("/users/{id}")
    ResponseEntity<String> user(@PathVariable("id") String id) {
      return serve("/users/3");
    }
  }

  @AfterEach
  void close() {
    if (app != null) {
      app.close();
    }
  }

  private void start() {
    app =
        SpringApplication.run(
            App.class,
            "--server.port=0",
            "--spring.main.banner-mode=off",
            "--ringtail.anomaly.enabled=true",
            "--ringtail.anomaly.measures=p95,error-ratio,rate",
            "--ringtail.anomaly.warm-up=" + WARM_UP,
            "--management.endpoints.web.exposure.include=ringtail");
    Behaviour b = app.getBean(Behaviour.class);
    b.latency.put("/orders/7", Duration.ofMillis(20));
    b.latency.put("/search", Duration.ofMillis(45));
    b.latency.put("/users/3", Duration.ofMillis(8));
  }

  private HttpResponse<String> get(String path) throws Exception {
    int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * One evaluation: the clock moves past the window, each endpoint serves {@value #REQUESTS}
   * requests (its latency varied by a cycle of three steps, which the warm-up learns), and once the
   * window holds all of them the alerts are evaluated. The events it published.
   */
  private List<EndpointAnomalyEvent> step() throws Exception {
    ManualTimeSource clock = app.getBean(ManualTimeSource.class);
    Behaviour b = app.getBean(Behaviour.class);
    clock.advance(Duration.ofMinutes(2));
    double cycle = 1.0 + 0.1 * (step++ % 3);
    int sent = 0;
    for (String path : PATHS) {
      Duration base = b.latency.get(path);
      for (int i = 0; i < REQUESTS; i++) {
        Duration latency = Duration.ofNanos((long) (base.toNanos() * cycle * (1 + 0.02 * i)));
        b.latency.put(path, latency);
        get(path);
        b.latency.put(path, base);
        // an observation stops after its response may have reached the client: the next request
        // moves the clock only once this one is recorded, so its duration is its own latency
        int expected = ++sent;
        Await.until(
            "request " + expected + " of the step in the window", () -> served() == expected);
      }
    }
    Events events = app.getBean(Events.class);
    int before = events.seen.size();
    app.getBean(EndpointAnomalies.class).evaluate();
    return new ArrayList<>(events.seen.subList(before, events.seen.size()));
  }

  private long served() {
    KeyedWindows keyed = app.getBean(ObservationWindows.class).windows().get(OBSERVATION);
    long n = 0;
    for (Map.Entry<String, WindowSnapshot> e : keyed.snapshots().entrySet()) {
      if (URIS.stream().anyMatch(u -> e.getKey().contains(u))) {
        n += e.getValue().count();
      }
    }
    return n;
  }

  private List<EndpointAnomalyEvent> quietWarmUp() throws Exception {
    List<EndpointAnomalyEvent> events = new ArrayList<>();
    for (int i = 0; i < QUIET_STEPS; i++) {
      events.addAll(step());
    }
    return events;
  }

  /** Steps until an event comes, at most {@code steps}; the events and how many steps it took. */
  private List<EndpointAnomalyEvent> stepUntilEvent(int steps, int[] taken) throws Exception {
    for (int i = 1; i <= steps; i++) {
      List<EndpointAnomalyEvent> events = step();
      if (!events.isEmpty()) {
        taken[0] = i;
        return events;
      }
    }
    taken[0] = -1;
    return List.of();
  }

  @Test
  void oneEndpointSlowsDown_firesOnItsP95Alone_thenResolvesAfterItRecovers() throws Exception {
    start();
    assertThat(quietWarmUp()).as("events during the quiet warm-up").isEmpty();

    Behaviour b = app.getBean(Behaviour.class);
    b.latency.put("/search", Duration.ofMillis(400));
    int[] taken = new int[1];
    List<EndpointAnomalyEvent> fired = stepUntilEvent(FIRE_WITHIN, taken);
    assertThat(fired).hasSize(1);
    EndpointAnomalyEvent event = fired.get(0);
    assertThat(event.type()).isEqualTo(EndpointAnomalyEvent.Type.FIRED);
    assertThat(event.endpoint()).isEqualTo(Map.of("method", "GET", "uri", "/search"));
    assertThat(event.measure()).isEqualTo(EndpointAnomalies.Measure.P95);
    assertThat(event.value()).isGreaterThan(Duration.ofMillis(300).toNanos());
    assertThat(event.score()).isGreaterThanOrEqualTo(0.5);
    // still slow: one page, not one per evaluation
    for (int i = 0; i < 3; i++) {
      assertThat(step()).isEmpty();
    }
    assertThat(gauge("ringtail.anomaly.firing", "/search", "p95")).isEqualTo(1.0);
    assertThat(gauge("ringtail.anomaly.firing", "/orders/{id}", "p95")).isZero();
    assertThat(gauge("ringtail.anomaly.score", "/search", "p95")).isBetween(0.0, 1.0);
    String state = get("/actuator/ringtail").body();
    assertThat(state)
        .contains("\"anomalies\"")
        .containsPattern("\"uri\":\"/search\"\\},\"measure\":\"p95\"[^}]*\"firing\":true");

    b.latency.put("/search", Duration.ofMillis(45));
    List<EndpointAnomalyEvent> resolved = stepUntilEvent(RESOLVE_WITHIN, taken);
    assertThat(resolved)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(EndpointAnomalyEvent.Type.RESOLVED);
              assertThat(e.endpoint()).containsEntry("uri", "/search");
              assertThat(e.measure()).isEqualTo(EndpointAnomalies.Measure.P95);
            });
    for (int i = 0; i < 5; i++) {
      assertThat(step()).as("events after the recovery").isEmpty();
    }
  }

  @Test
  void oneEndpointStartsFailing_firesOnItsErrorRatioAlone_thenResolves() throws Exception {
    start();
    assertThat(quietWarmUp()).isEmpty();

    Behaviour b = app.getBean(Behaviour.class);
    b.failing.add("/orders/7");
    int[] taken = new int[1];
    List<EndpointAnomalyEvent> fired = stepUntilEvent(FIRE_WITHIN, taken);
    assertThat(fired)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(EndpointAnomalyEvent.Type.FIRED);
              assertThat(e.endpoint()).isEqualTo(Map.of("method", "GET", "uri", "/orders/{id}"));
              assertThat(e.measure()).isEqualTo(EndpointAnomalies.Measure.ERROR_RATIO);
              assertThat(e.value()).isEqualTo(1.0);
            });
    assertThat(step()).isEmpty();

    b.failing.clear();
    assertThat(stepUntilEvent(RESOLVE_WITHIN, taken))
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(EndpointAnomalyEvent.Type.RESOLVED));
    for (int i = 0; i < 5; i++) {
      assertThat(step()).isEmpty();
    }
  }

  private double gauge(String name, String uri, String measure) {
    return app.getBean(MeterRegistry.class)
        .get(name)
        .tags("window", OBSERVATION, "uri", uri, "measure", measure, "method", "GET")
        .gauge()
        .value();
  }
}
