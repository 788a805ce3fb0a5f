package io.ringtail.examples.grafana;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testsupport.PrometheusServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The Grafana dashboard in {@code docs/grafana/ringtail-fleet.json} against what a Spring Boot
 * application on the starter exports: a window bean that keeps its distribution (whose histogram
 * the starter registers with no code), a Redis rate limiter bean, the Redis backend's meters, and a
 * fleet-wide service level declared by {@code ringtail.slo.orders.*} over the requests of an
 * endpoint, on a real redis-server. Two real Prometheus servers scrape {@code /actuator/prometheus}
 * (one keeping classic histograms, one native ones); every panel's query must answer with data on
 * one of them.
 */
class GrafanaDashboardTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @SpringBootApplication
  @RestController
  static class App {
    /** One order in ten fails: the service level's budget burns. */
    @GetMapping("/orders/{id}")
    org.springframework.http.ResponseEntity<String> order(@PathVariable int id) {
      return org.springframework.http.ResponseEntity.status(id % 10 == 0 ? 503 : 200)
          .body("order " + id);
    }

    @Bean
    RollingWindow checkoutLatency() {
      return RollingWindow.create(WindowConfig.builder().cumulativeHistogram(true).build());
    }

    @Bean
    RateLimiter perClient(RedisBackend backend) {
      return backend.rateLimiter(
          "clients-" + System.nanoTime(),
          RateLimitConfig.builder().limit(3).window(Duration.ofMinutes(1)).build());
    }
  }

  /** The repository's root: the nearest parent holding README.md and docs/. */
  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null
        && !(Files.exists(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs")))) {
      dir = dir.getParent();
    }
    assertThat(dir).isNotNull();
    return dir;
  }

  /**
   * What Grafana's import needs of a dashboard's model (no Grafana server runs here): a title, a
   * uid and a schema version; panels with distinct ids, a panel type, a place on the 24-column grid
   * that overlaps no other panel, the data source variable the templating defines, and targets with
   * distinct refIds.
   */
  @Test
  void theDashboardModel_hasWhatAnImportNeeds() throws Exception {
    JsonNode dashboard =
        JSON.readTree(repositoryRoot().resolve("docs/grafana/ringtail-fleet.json").toFile());
    assertThat(dashboard.path("title").asText()).isNotBlank();
    assertThat(dashboard.path("uid").asText()).matches("[a-zA-Z0-9_-]{1,40}");
    assertThat(dashboard.path("schemaVersion").asInt()).isPositive();
    List<String> variables = new ArrayList<>();
    for (JsonNode v : dashboard.path("templating").path("list")) {
      variables.add(v.path("name").asText());
    }
    assertThat(variables).contains("datasource", "window");
    Set<Integer> ids = new HashSet<>();
    List<int[]> placed = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(ids.add(panel.path("id").asInt())).as("distinct panel ids").isTrue();
      assertThat(panel.path("type").asText()).isIn("timeseries", "stat", "gauge", "table");
      JsonNode g = panel.path("gridPos");
      int[] box = {
        g.path("x").asInt(), g.path("y").asInt(), g.path("w").asInt(), g.path("h").asInt()
      };
      assertThat(box[2]).isPositive();
      assertThat(box[3]).isPositive();
      assertThat(box[0] + box[2]).as("within the 24 columns").isLessThanOrEqualTo(24);
      for (int[] other : placed) {
        boolean apart =
            box[0] + box[2] <= other[0]
                || other[0] + other[2] <= box[0]
                || box[1] + box[3] <= other[1]
                || other[1] + other[3] <= box[1];
        assertThat(apart).as("panel %s overlaps another", panel.path("title")).isTrue();
      }
      placed.add(box);
      assertThat(panel.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
      Set<String> refIds = new HashSet<>();
      for (JsonNode t : panel.path("targets")) {
        assertThat(refIds.add(t.path("refId").asText())).isTrue();
        assertThat(t.path("expr").asText()).isNotBlank();
      }
    }
  }

  @Test
  void everyPanelOfTheDashboard_answersWithData() throws Exception {
    JsonNode dashboard =
        JSON.readTree(repositoryRoot().resolve("docs/grafana/ringtail-fleet.json").toFile());
    assertThat(dashboard.path("title").asText()).isNotBlank();
    assertThat(dashboard.path("panels").size()).isGreaterThanOrEqualTo(9);

    try (RedisProcess redis = RedisProcess.start();
        ConfigurableApplicationContext context =
            SpringApplication.run(
                App.class,
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--spring.data.redis.url=redis://127.0.0.1:" + redis.port(),
                "--ringtail.redis.enabled=true",
                "--ringtail.slo.orders.paths=/orders/**",
                "--ringtail.slo.orders.objectives.fast.threshold=300ms",
                "--ringtail.slo.orders.objectives.fast.target=0.99",
                "--ringtail.slo.orders.objectives.available.target=0.99",
                "--management.endpoints.web.exposure.include=prometheus")) {
      String base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
      HttpClient http = HttpClient.newHttpClient();
      for (int i = 0; i < 50; i++) {
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/orders/" + i)).build(),
            HttpResponse.BodyHandlers.discarding());
      }
      RollingWindow checkout = context.getBean("checkoutLatency", RollingWindow.class);
      SplittableRandom random = new SplittableRandom(3);
      int samples = 5_000;
      for (int i = 0; i < samples; i++) {
        checkout.record((long) (0.05e9 * Math.exp(random.nextGaussian() * 0.5)));
      }
      checkout.record(-1); // a rejection, for the rejections panel
      RateLimiter perClient = context.getBean(RateLimiter.class);
      for (int i = 0; i < 5; i++) {
        perClient.tryAcquire("client");
      }
      String target = "127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
      try (PrometheusServer classic =
              PrometheusServer.start(List.of(target), "/actuator/prometheus", "exemplar-storage");
          PrometheusServer nativeHistograms =
              PrometheusServer.start(
                  List.of(target), "/actuator/prometheus", "native-histograms")) {
        classic.awaitValue(
            "sum(ringtail_window_seconds_count{window=\"checkoutLatency\"})", samples);
        nativeHistograms.awaitValue(
            "histogram_count(sum(ringtail_window_seconds{window=\"checkoutLatency\"}))", samples);
        // a few scrapes more, so every rate() has two points in its range
        classic.awaitScrapes(4);
        nativeHistograms.awaitScrapes(4);
        // the service level's counters were scraped with the requests
        classic.awaitValue("sum(ringtail_slo_events_total{objective=\"available\"})", 50);
        List<String> silent = new ArrayList<>();
        int checked = 0;
        for (JsonNode panel : dashboard.path("panels")) {
          assertThat(panel.path("targets").size())
              .as("targets of %s", panel.path("title"))
              .isPositive();
          for (JsonNode t : panel.path("targets")) {
            // Grafana's variables, as a user picking this window would see them
            String promql =
                t.path("expr")
                    .asText()
                    .replace("$window", "checkoutLatency")
                    .replace("$__rate_interval", "1m");
            checked++;
            boolean data = false;
            for (PrometheusServer server : List.of(classic, nativeHistograms)) {
              JsonNode answer = JSON.readTree(server.query(promql));
              assertThat(answer.path("status").asText())
                  .as("%s: %s", promql, answer)
                  .isEqualTo("success");
              data |= answer.path("data").path("result").size() > 0;
            }
            if (!data) {
              silent.add(panel.path("title").asText() + ": " + promql);
            }
          }
        }
        assertThat(checked).isGreaterThanOrEqualTo(15);
        assertThat(silent).as("panel queries that answered with no data").isEmpty();
        // the window picker lists the window on both servers from the histogram's own series, so
        // it is not empty without the Micrometer binding's ringtail_window_recorded_total
        String picker = "";
        for (JsonNode v : dashboard.path("templating").path("list")) {
          if (v.path("name").asText().equals("window")) {
            picker = v.path("query").path("query").asText();
          }
        }
        assertThat(picker).startsWith("label_values(").endsWith(", window)");
        String selector =
            picker.substring("label_values(".length(), picker.lastIndexOf(", window)"));
        for (PrometheusServer server : List.of(classic, nativeHistograms)) {
          Set<String> fromHistograms = new HashSet<>();
          for (JsonNode series :
              JSON.readTree(server.api("series", "match[]", selector)).path("data")) {
            if (!series.path("__name__").asText().equals("ringtail_window_recorded_total")) {
              fromHistograms.add(series.path("window").asText());
            }
          }
          assertThat(fromHistograms)
              .as("windows the picker finds in histograms")
              .contains("checkoutLatency");
        }
      }
    }
  }
}
