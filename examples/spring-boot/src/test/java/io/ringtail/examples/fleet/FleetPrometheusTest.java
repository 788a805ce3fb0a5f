package io.ringtail.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testsupport.PrometheusServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Three instances of one service on the starter, fleet-wide through one real redis-server, scraped
 * by a real Prometheus server: each fleet series ({@code ringtail_fleet_*}, the anomaly scores)
 * exists once in Prometheus, exported by the instance that merges its key, however many instances
 * serve the route, while each instance exports its own counters, which sum to the fleet's count.
 * Every instance's {@code /actuator/ringtail} shows the anomaly state that one instance evaluates.
 */
class FleetPrometheusTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int INSTANCES = 3;
  private final HttpClient http = HttpClient.newHttpClient();

  @SpringBootApplication
  @RestController
  static class Service {
    @GetMapping("/orders/{id}")
    String order(@PathVariable("id") String id) {
      return id;
    }

    @GetMapping("/cart")
    String cart() {
      return "cart";
    }
  }

  private String get(int port, String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    return r.body();
  }

  @Test
  void eachFleetSeriesExistsOnce_andTheInstancesCountersSumToTheFleet() throws Exception {
    List<ConfigurableApplicationContext> instances = new ArrayList<>();
    try (RedisProcess redis = RedisProcess.start()) {
      try {
        List<String> targets = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
          ConfigurableApplicationContext app =
              SpringApplication.run(
                  Service.class,
                  "--server.port=0",
                  "--spring.main.banner-mode=off",
                  "--spring.data.redis.url=redis://127.0.0.1:" + redis.port(),
                  "--ringtail.redis.enabled=true",
                  "--ringtail.redis.command-timeout=5s",
                  "--ringtail.observations.publish-interval=200ms",
                  "--ringtail.anomaly.enabled=true",
                  "--ringtail.anomaly.interval=500ms",
                  "--management.endpoints.web.exposure.include=prometheus,ringtail");
          instances.add(app);
          int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
          ports.add(port);
          targets.add("127.0.0.1:" + port);
        }
        int orders = 0;
        int carts = 0;
        for (int i = 0; i < INSTANCES; i++) {
          for (int n = 0; n < 10 * (i + 1); n++) {
            get(ports.get(i), "/orders/" + n);
            orders++;
          }
          for (int n = 0; n < 3 + i; n++) {
            get(ports.get(i), "/cart");
            carts++;
          }
        }
        try (PrometheusServer prometheus =
            PrometheusServer.start(targets, "/actuator/prometheus")) {
          String ordersLabels = "{uri=\"/orders/{id}\",status=\"200\"}";
          // each instance's own counter, summed by Prometheus: the fleet's count
          prometheus.awaitValue(
              "count(ringtail_http_server_requests_recorded_total" + ordersLabels + ")", INSTANCES);
          prometheus.awaitValue(
              "sum(ringtail_http_server_requests_recorded_total" + ordersLabels + ")", orders);
          prometheus.awaitValue(
              "sum(ringtail_http_server_requests_recorded_total{uri=\"/cart\"})", carts);
          // the fleet's gauges: once, with the fleet's count
          prometheus.awaitValue(
              "max(ringtail_fleet_http_server_requests_samples" + ordersLabels + ")", orders);
          prometheus.awaitValue(
              "count(ringtail_fleet_http_server_requests_samples" + ordersLabels + ")", 1);
          prometheus.awaitValue(
              "max(ringtail_fleet_http_server_requests_samples{uri=\"/cart\"})", carts);
          prometheus.awaitValue(
              "count(ringtail_anomaly_score{uri=\"/orders/{id}\",measure=\"p95\"})", 1);
          prometheus.awaitScrapes(2);
          // every fleet series of every key, and every anomaly score, exists once
          assertThat(
                  prometheus.value(
                      "max(count by (__name__, method, uri, status, outcome, phi)"
                          + " ({__name__=~\"ringtail_fleet_.*\",__name__!~\".*_keys(_bound)?\"}))"))
              .isEqualTo(1.0);
          assertThat(
                  prometheus.value("max(count by (method, uri, measure) (ringtail_anomaly_score))"))
              .isEqualTo(1.0);
          assertThat(
                  prometheus.value(
                      "count(ringtail_fleet_http_server_requests_percentile_seconds"
                          + "{uri=\"/orders/{id}\",phi=\"0.95\"})"))
              .isEqualTo(1.0);
          // per instance only its counters: no statistics of its own under the fleet's names
          assertThat(prometheus.query("ringtail_http_server_requests_samples"))
              .doesNotContain("/orders/{id}");
        }
        // every instance shows the state of /orders/{id}'s P95, evaluated by one of them
        Map<String, Integer> evaluatedHere = new HashMap<>();
        for (int port : ports) {
          JsonNode ringtail = JSON.readTree(get(port, "/actuator/ringtail"));
          boolean shown = false;
          for (JsonNode a : ringtail.path("anomalies")) {
            if (a.path("endpoint").path("uri").asText().equals("/orders/{id}")
                && a.path("measure").asText().equals("p95")) {
              shown = true;
              assertThat(a.path("evaluations").asLong()).isPositive();
              evaluatedHere.merge("p95", a.path("evaluatedHere").asBoolean() ? 1 : 0, Integer::sum);
            }
          }
          assertThat(shown).as("instance on %d shows /orders/{id}'s p95", port).isTrue();
        }
        assertThat(evaluatedHere).containsEntry("p95", 1);
      } finally {
        instances.forEach(ConfigurableApplicationContext::close);
      }
    }
  }
}
