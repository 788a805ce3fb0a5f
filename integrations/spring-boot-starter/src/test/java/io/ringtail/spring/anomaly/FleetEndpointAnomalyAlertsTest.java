package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.testkit.RedisProcess;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two instances of one web application against one real redis-server, each with {@code
 * ringtail.anomaly.enabled=true} on the fleet's observation window: the endpoint is evaluated by
 * one instance (the merger of its key), whose state both show; when it starts failing the
 * regression is paged once, and when that instance stops the other takes the state over and
 * resolves the fire once.
 *
 * <p>Evaluations are driven by the test (the scheduler bean is replaced); the detectors count
 * evaluations, so no time needs to pass.
 */
class FleetEndpointAnomalyAlertsTest {
  private static final String OBSERVATION = "http.server.requests";

  private final HttpClient http = HttpClient.newHttpClient();
  private RedisProcess server;
  private final List<ConfigurableApplicationContext> pods = new ArrayList<>();

  /** The events one pod published. */
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
    private final AtomicBoolean failing = new AtomicBoolean();

    @Bean
    static Events events() {
      return new Events();
    }

    @Bean(RingtailAnomalyAutoConfiguration.SCHEDULER)
    static String manualEvaluations() {
      return "evaluated by the test";
    }

    @GetMapping("/orders")
    ResponseEntity<String> orders() {
      return failing.get() ? ResponseEntity.status(503).body("down") : ResponseEntity.ok("ok");
    }

    @GetMapping("/fail")
    String fail() {
      failing.set(true);
      return "failing";
    }

    @GetMapping("/recover")
    String recover() {
      failing.set(false);
      return "recovered";
    }
  }

  @BeforeEach
  void startRedis() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() {
    pods.forEach(ConfigurableApplicationContext::close);
    server.close();
  }

  private ConfigurableApplicationContext pod() {
    ConfigurableApplicationContext pod =
        SpringApplication.run(
            App.class,
            "--server.port=0",
            "--spring.main.banner-mode=off",
            "--spring.data.redis.url=redis://127.0.0.1:" + server.port(),
            "--ringtail.redis.enabled=true",
            "--ringtail.redis.command-timeout=2s",
            "--ringtail.observations.window=10m",
            "--ringtail.observations.publish-interval=20ms",
            "--ringtail.anomaly.enabled=true",
            "--ringtail.anomaly.measures=error-ratio",
            "--ringtail.anomaly.warm-up=10",
            "--ringtail.anomaly.minimum-samples=1");
    pods.add(pod);
    return pod;
  }

  private HttpResponse<String> get(ConfigurableApplicationContext pod, String path)
      throws Exception {
    int port = Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The fleet's count of {@code /orders} requests, as {@code pod} reads its window. */
  private static long orders(ConfigurableApplicationContext pod) {
    KeyedWindows keyed = pod.getBean(ObservationWindows.class).windows().get(OBSERVATION);
    long n = 0;
    for (Map.Entry<String, WindowSnapshot> e : keyed.snapshots().entrySet()) {
      if (e.getKey().contains("/orders")) {
        n += e.getValue().count();
      }
    }
    return n;
  }

  /** Each pod serves two requests; once both read the fleet's count, both evaluate. */
  private List<EndpointAnomalyEvent> step(long[] served) throws Exception {
    for (ConfigurableApplicationContext pod : pods) {
      for (int i = 0; i < 2; i++) {
        get(pod, "/orders");
        served[0]++;
      }
    }
    for (ConfigurableApplicationContext pod : pods) {
      Await.until("the fleet's " + served[0] + " requests", () -> orders(pod) == served[0]);
    }
    List<EndpointAnomalyEvent> events = new ArrayList<>();
    for (ConfigurableApplicationContext pod : pods) {
      events.addAll(pod.getBean(EndpointAnomalies.class).evaluate());
    }
    return events;
  }

  private static EndpointAnomalies.State ordersState(ConfigurableApplicationContext pod) {
    return pod.getBean(EndpointAnomalies.class).states().stream()
        .filter(s -> s.endpoint().get("uri").equals("/orders"))
        .findFirst()
        .orElseThrow();
  }

  /** The pods whose registries hold the score gauge of {@code /orders}. */
  private List<ConfigurableApplicationContext> exportingScore() {
    List<ConfigurableApplicationContext> out = new ArrayList<>();
    for (ConfigurableApplicationContext pod : pods) {
      if (pod.getBean(MeterRegistry.class)
              .find("ringtail.anomaly.score")
              .tag("uri", "/orders")
              .gauge()
          != null) {
        out.add(pod);
      }
    }
    return out;
  }

  private static int published(ConfigurableApplicationContext pod, EndpointAnomalyEvent.Type t) {
    return (int) pod.getBean(Events.class).seen.stream().filter(e -> e.type() == t).count();
  }

  @Test
  void aRegression_isEvaluatedOnceForTheFleet_pagedOnce_andResolvedByTheNextEvaluator()
      throws Exception {
    ConfigurableApplicationContext podA = pod();
    ConfigurableApplicationContext podB = pod();
    long[] served = new long[1];
    for (int i = 0; i < 20; i++) {
      assertThat(step(served)).as("events during the quiet warm-up").isEmpty();
    }
    // one instance evaluates the endpoint; every instance shows its state
    assertThat(ordersState(podA).here()).isNotEqualTo(ordersState(podB).here());
    assertThat(ordersState(podA).evaluations()).isEqualTo(ordersState(podB).evaluations());
    assertThat(exportingScore()).as("one score gauge in the fleet").hasSize(1);
    ConfigurableApplicationContext evaluator = ordersState(podA).here() ? podA : podB;
    ConfigurableApplicationContext survivor = evaluator == podA ? podB : podA;

    for (ConfigurableApplicationContext pod : pods) {
      get(pod, "/fail");
    }
    List<EndpointAnomalyEvent> paged = new ArrayList<>();
    for (int i = 0; i < 3 && !ordersState(evaluator).firing(); i++) {
      paged.addAll(step(served));
    }
    for (ConfigurableApplicationContext pod : pods) {
      get(pod, "/recover");
    }
    assertThat(ordersState(podA).firing()).as("pod A shows the fire").isTrue();
    assertThat(ordersState(podB).firing()).as("pod B shows the fire").isTrue();
    assertThat(ordersState(podA).paged()).isTrue();
    assertThat(ordersState(podB).paged()).isTrue();
    assertThat(paged)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(EndpointAnomalyEvent.Type.FIRED);
              assertThat(e.endpoint()).containsEntry("uri", "/orders");
              assertThat(e.measure()).isEqualTo(EndpointAnomalies.Measure.ERROR_RATIO);
            });
    assertThat(published(evaluator, EndpointAnomalyEvent.Type.FIRED)).isEqualTo(1);
    assertThat(published(survivor, EndpointAnomalyEvent.Type.FIRED)).isZero();

    // the evaluator stops: the survivor merges the group, takes the state over and resolves the
    // fire once the ratio is back half-way, without paging it again
    pods.remove(evaluator);
    evaluator.close();
    List<EndpointAnomalyEvent> later = new ArrayList<>();
    for (int i = 0; i < 80 && ordersState(survivor).firing(); i++) {
      later.addAll(step(served));
    }
    assertThat(ordersState(survivor).here()).isTrue();
    assertThat(ordersState(survivor).firing()).as("resolved").isFalse();
    assertThat(later)
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(EndpointAnomalyEvent.Type.RESOLVED));
    assertThat(published(survivor, EndpointAnomalyEvent.Type.FIRED)).isZero();
    assertThat(exportingScore()).containsExactly(survivor);
  }
}
