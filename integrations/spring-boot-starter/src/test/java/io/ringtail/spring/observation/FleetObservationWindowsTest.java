package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two instances ("pods") of one web application, each on a random port with its own Redis
 * connection, against one real redis-server: the HTTP requests both serve land in one fleet window
 * per endpoint, whose gauges the pod merging the endpoint exports, while each pod exports the
 * counters of what it served.
 */
class FleetObservationWindowsTest {
  private static final String OBSERVATION = "http.server.requests";

  private final HttpClient http = HttpClient.newHttpClient();
  private RedisProcess server;
  private ConfigurableApplicationContext podA;
  private ConfigurableApplicationContext podB;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    @GetMapping("/orders/{id}")
    String order(@PathVariable("id") String id) {
      return id;
    }
  }

  @BeforeEach
  void startRedis() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() {
    for (ConfigurableApplicationContext pod : new ConfigurableApplicationContext[] {podA, podB}) {
      if (pod != null) {
        pod.close();
      }
    }
    server.close();
  }

  private ConfigurableApplicationContext pod(String... extra) {
    String[] common = {
      "--server.port=0",
      "--spring.main.banner-mode=off",
      "--spring.data.redis.url=redis://127.0.0.1:" + server.port(),
      "--ringtail.redis.enabled=true",
      "--ringtail.redis.command-timeout=5s", // generous: a loaded 2-core machine
      "--management.endpoints.web.exposure.include=prometheus"
    };
    String[] args = new String[common.length + extra.length];
    System.arraycopy(common, 0, args, 0, common.length);
    System.arraycopy(extra, 0, args, common.length, extra.length);
    return SpringApplication.run(App.class, args);
  }

  private static int port(ConfigurableApplicationContext pod) {
    return Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
  }

  private HttpResponse<String> get(ConfigurableApplicationContext pod, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(pod) + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static RedisKeyedHistogramWindows fleetWindows(ConfigurableApplicationContext pod) {
    KeyedWindows keyed = pod.getBean(ObservationWindows.class).windows().get(OBSERVATION);
    assertThat(keyed).isInstanceOf(RedisKeyedHistogramWindows.class);
    return (RedisKeyedHistogramWindows) keyed;
  }

  /** The fleet's count of {@code GET /orders/{id}} answered 200, as {@code pod} reads it. */
  private static long ordersCount(ConfigurableApplicationContext pod) {
    for (Map.Entry<String, WindowSnapshot> e : fleetWindows(pod).snapshots().entrySet()) {
      Map<String, String> tags = new HashMap<>();
      ObservationWindows.tagsOf(e.getKey()).forEach(t -> tags.put(t.getKey(), t.getValue()));
      if (tags.equals(
          Map.of("method", "GET", "uri", "/orders/{id}", "status", "200", "outcome", "SUCCESS"))) {
        return e.getValue().count();
      }
    }
    return 0;
  }

  @Test
  void requestsServedByTwoPods_countOnceEach_inOneFleetWindow_whoseGaugesOnePodExports()
      throws Exception {
    podA = pod();
    podB = pod();
    int servedByA = 23;
    int servedByB = 17;
    for (int i = 0; i < Math.max(servedByA, servedByB); i++) {
      if (i < servedByA) {
        assertThat(get(podA, "/orders/" + i).statusCode()).isEqualTo(200);
      }
      if (i < servedByB) {
        assertThat(get(podB, "/orders/" + (1_000 + i)).statusCode()).isEqualTo(200);
      }
    }
    long fleet = servedByA + servedByB;
    // a request's observation stops after its response may have been flushed to the client:
    // publish both pods' samples until the last ones are in, bounded
    Await.until(
        "both pods' " + fleet + " requests in the fleet window",
        () -> {
          assertThat(fleetWindows(podA).flush(Duration.ofSeconds(5))).isTrue();
          assertThat(fleetWindows(podB).flush(Duration.ofSeconds(5))).isTrue();
          return ordersCount(podA) >= fleet;
        });
    assertThat(ordersCount(podA)).isEqualTo(fleet);
    assertThat(ordersCount(podB)).isEqualTo(fleet);
    // each pod's publication meters count what it published of the observation's fleet window
    // (its scrapes are observed too, so at least what it served on /orders; pending is registered)
    assertThat(
            podA.getBean(MeterRegistry.class)
                .get("ringtail.redis.publication.samples")
                .tags("window", OBSERVATION, "outcome", "published")
                .functionCounter()
                .count())
        .isGreaterThanOrEqualTo(servedByA);
    assertThat(
            podB.getBean(MeterRegistry.class)
                .get("ringtail.redis.publication.pending")
                .tags("window", OBSERVATION)
                .gauge()
                .value())
        .isNotNegative();

    String labels =
        "{method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/orders/{id}\","
            + "window=\"http.server.requests\"}";
    String fleetSeries =
        "ringtail_fleet_http_server_requests_samples" + labels + " " + fleet + ".0";
    // the fleet's gauges come from the pod that merges the key, once it has merged both pods'
    Await.until(
        "the fleet count on one pod's /actuator/prometheus",
        () -> {
          try {
            return get(podA, "/actuator/prometheus").body().contains(fleetSeries)
                || get(podB, "/actuator/prometheus").body().contains(fleetSeries);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
    String bodyA = get(podA, "/actuator/prometheus").body();
    String bodyB = get(podB, "/actuator/prometheus").body();
    String merger = fleetWindows(podA).owns(ordersKey()) ? bodyA : bodyB;
    String other = merger == bodyA ? bodyB : bodyA;
    assertThat(merger)
        .contains(fleetSeries)
        .containsPattern(
            "ringtail_fleet_http_server_requests_percentile_seconds\\{method=\"GET\","
                + "outcome=\"SUCCESS\",phi=\"0.95\",status=\"200\",uri=\"/orders/\\{id}\","
                + "window=\"http.server.requests\"} [0-9.E-]+\n");
    assertThat(other).doesNotContain("ringtail_fleet_http_server_requests_samples" + labels);
    // each pod's own counter: what it served (and nothing of the fleet's statistics per pod)
    assertThat(bodyA)
        .contains("ringtail_http_server_requests_recorded_total" + labels + " " + servedByA + ".0")
        .doesNotContain("ringtail_http_server_requests_samples{");
    assertThat(bodyB)
        .contains("ringtail_http_server_requests_recorded_total" + labels + " " + servedByB + ".0")
        .doesNotContain("ringtail_http_server_requests_samples{");
  }

  /** The key of {@code GET /orders/{id}} answered 200. */
  private String ordersKey() {
    for (String key : fleetWindows(podA).totals().keySet()) {
      Map<String, String> tags = new HashMap<>();
      ObservationWindows.tagsOf(key).forEach(t -> tags.put(t.getKey(), t.getValue()));
      if (tags.equals(
          Map.of("method", "GET", "uri", "/orders/{id}", "status", "200", "outcome", "SUCCESS"))) {
        return key;
      }
    }
    throw new AssertionError("no key of GET /orders/{id} 200");
  }

  @Test
  void aRouteThisPodJustServed_isOnItsFirstScrape_andItsRecordedTotalCountsWhatThisPodServed()
      throws Exception {
    podA = pod();
    for (int i = 0; i < 7; i++) {
      assertThat(get(podA, "/orders/" + i).statusCode()).isEqualTo(200);
    }
    // the observation stops after the response may have reached the client: wait for all seven
    // records, published and merged
    Await.until(
        "seven requests recorded and merged",
        () -> fleetWindows(podA).flush(Duration.ofSeconds(5)) && ordersCount(podA) == 7);
    String body = get(podA, "/actuator/prometheus").body();
    String labels =
        "{method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/orders/{id}\","
            + "window=\"http.server.requests\"}";
    // what this pod recorded, a counter Prometheus sums over pods: registered when the route is
    // first recorded, not a scrape later, so its first scrape counts all seven
    assertThat(body).contains("ringtail_http_server_requests_recorded_total" + labels + " 7.0");
    // the only pod merges every key: the fleet's gauges are its own, from the next scrape on
    Await.until(
        "the fleet's count on the only pod",
        () -> {
          try {
            return get(podA, "/actuator/prometheus")
                .body()
                .contains("ringtail_fleet_http_server_requests_samples" + labels + " 7.0");
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void closingAPod_publishesWhatItStillHeld() {
    // a minute between publication rounds: only the close can send pod A's samples in time
    podA = pod("--ringtail.observations.publish-interval=1m");
    podB = pod();
    RedisKeyedHistogramWindows onA = fleetWindows(podA);
    for (int i = 1; i <= 3; i++) {
      onA.record("GET /held", i * 1_000_000L);
    }
    assertThat(fleetWindows(podB).snapshot("GET /held").count()).isZero();
    podA.close();
    assertThat(fleetWindows(podB).snapshot("GET /held").count()).isEqualTo(3);
  }

  @Test
  void aPublishIntervalTheWindowsRefuse_failsTheStart_namingTheProperty() {
    assertThatThrownBy(() -> pod("--ringtail.observations.publish-interval=2m"))
        .hasStackTraceContaining(
            "ringtail.observations.publish-interval: publishInterval must be between 1 ms and 1"
                + " minute, but was PT2M");
  }

  @Test
  void fleetFalse_keepsTheWindowsInProcess() {
    podA = pod("--ringtail.observations.fleet=false");
    KeyedWindows keyed = podA.getBean(ObservationWindows.class).windows().get(OBSERVATION);
    assertThat(keyed).isNotInstanceOf(RedisKeyedHistogramWindows.class);
  }
}
