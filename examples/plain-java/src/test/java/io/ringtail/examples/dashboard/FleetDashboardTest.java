package io.ringtail.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.alert.Measure;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.embedded.RedisServer;

/** Fleet mode against a real redis-server: workers on their own connections share one window. */
class FleetDashboardTest {
  private static RedisServer redis;
  private static int port;

  @BeforeAll
  static void startRedis() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    redis =
        RedisServer.builder()
            .bind("127.0.0.1")
            .port(port)
            .setting("save \"\"")
            .setting("appendonly no")
            .build();
    redis.start();
  }

  @AfterAll
  static void stopRedis() throws IOException {
    redis.stop();
  }

  @Test
  void fleet_workersShareTheRedisWindows_andThePageShowsTheFleetTotal() throws Exception {
    ManualTimeSource time = new ManualTimeSource(0);
    Options options =
        Options.parse(
            "--duration",
            "30",
            "--rate",
            "150",
            "--workers",
            "3",
            "--redis",
            "redis://127.0.0.1:" + port,
            "--fleet",
            "fleet-test-" + System.nanoTime());
    try (Dashboard dashboard = Dashboard.create(options, time, 1_780_000_000_000L)) {
      dashboard.startServer();
      for (int i = 0; i < 30; i++) {
        time.advance(Duration.ofMillis(100));
        dashboard.serveDue();
      }
      assertThat(dashboard.flush()).as("every recorded sample reached Redis").isTrue();
      awaitRouteSummaries(dashboard, 3 * 150);
      Point p = dashboard.sample();

      assertThat(dashboard.servedPerWorker()).containsExactly(150, 150, 150);
      assertThat(p.longWindow().count()).isEqualTo(450);
      assertThat(p.shortWindow().count()).isEqualTo(450);
      assertThat(p.longWindow().p95Millis())
          .isGreaterThan(p.longWindow().meanMillis())
          .isLessThanOrEqualTo(p.longWindow().p99Millis());

      HttpClient http = HttpClient.newHttpClient();
      JsonNode d =
          new ObjectMapper()
              .readTree(
                  http.send(
                          HttpRequest.newBuilder(URI.create(dashboard.url() + "api/stats")).build(),
                          HttpResponse.BodyHandlers.ofString())
                      .body());
      assertThat(d.get("mode").asText())
          .startsWith("fleet in Redis 127.0.0.1:" + port)
          .contains("histogram window");
      assertThat(d.at("/fleet/publishers").asInt()).isEqualTo(3);
      assertThat(d.at("/fleet/ratePerSecond").asDouble())
          .as("450 samples over the 59 to 60 s the long window covers")
          .isBetween(450 / 60.0, 450 / 59.0);
      assertThat(d.at("/fleet/stalenessSeconds").asDouble()).isBetween(0.0, 5.0);
      assertThat(d.at("/windows/long/current/count").asLong()).isEqualTo(450);
      long[] served = new long[3];
      Arrays.setAll(served, i -> d.get("servedByWorker").get(i).asLong());
      assertThat(served).containsExactly(150, 150, 150);
      JsonNode routes = d.get("routes");
      assertThat(routes).as("every route, fleet-wide").hasSize(3);
      for (int i = 0; i < 3; i++) {
        assertThat(routes.get(i).get("route").asText()).isEqualTo(SimulatedWorker.ROUTES.get(i));
        assertThat(routes.get(i).get("count").asLong())
            .as("a third of each of the 3 workers' 150 requests")
            .isEqualTo(150);
        assertThat(routes.get(i).get("p95Millis").asDouble())
            .isLessThanOrEqualTo(routes.get(i).get("p99Millis").asDouble());
      }

      String metrics =
          http.send(
                  HttpRequest.newBuilder(URI.create(dashboard.url() + "metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics)
          .containsPattern("(?m)^ringtail_window_samples\\{[^}]*window=\"60s\"[^}]*} 450(\\.0)?$");
    }
  }

  /**
   * Samples the dashboard until its routes, read from the fleet's summaries, count {@code total}: a
   * flush merges the workers' samples at once, and the merger of each group writes its summary
   * again at its next tick (a real ticker, at most a publish interval away).
   */
  private static void awaitRouteSummaries(Dashboard dashboard, long total) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      dashboard.sample();
      long counted = dashboard.model().routes().stream().mapToLong(r -> r.stats().count()).sum();
      if (counted == total || System.nanoTime() > deadline) {
        assertThat(counted).as("the routes' summaries count every request").isEqualTo(total);
        return;
      }
      Thread.sleep(50); // the mergers' tickers run in real time
    }
  }

  @Test
  void fleet_pageShowsEveryRoute_inARealBrowser(@TempDir Path profile) throws Exception {
    ManualTimeSource time = new ManualTimeSource(0);
    Options options =
        Options.parse(
            "--duration",
            "30",
            "--rate",
            "90",
            "--workers",
            "3",
            "--redis",
            "redis://127.0.0.1:" + port,
            "--fleet",
            "browser-" + System.nanoTime());
    try (Dashboard dashboard = Dashboard.create(options, time, 1_780_000_000_000L)) {
      dashboard.startServer();
      for (int i = 0; i < 5; i++) {
        time.advance(Duration.ofSeconds(1));
        dashboard.serveDue();
      }
      assertThat(dashboard.flush()).isTrue();
      awaitRouteSummaries(dashboard, 3 * 150);

      String dom =
          DashboardBrowserTest.chromium(
              profile, "--virtual-time-budget=5000", "--dump-dom", dashboard.url());

      assertThat(DashboardBrowserTest.attribute(dom, "data-routes")).isEqualTo("3");
      assertThat(dom).contains("fleet-wide, every process merged in Redis");
      for (String route : SimulatedWorker.ROUTES) {
        assertThat(dom).containsPattern("<td>" + route + "</td><td>150</td>");
      }
    }
  }

  /**
   * The page's service level is the fleet's: every worker records into its own RedisServiceLevel,
   * and the reader, which records nothing, reads all their requests; one worker is the pager.
   */
  @Test
  void fleet_sloPanelCountsEveryWorkersRequests() throws Exception {
    ManualTimeSource time = new ManualTimeSource(0);
    String fleet = "slo-" + System.nanoTime();
    try (Dashboard dashboard = Dashboard.create(fleetOptions(fleet, "150", "3"), time, 0)) {
      dashboard.startServer();
      for (int i = 0; i < 20; i++) {
        time.advance(Duration.ofMillis(100));
        dashboard.serveDue();
      }
      assertThat(dashboard.flush()).as("every request reached Redis").isTrue();

      JsonNode slo = awaitSlo(dashboard, 300);

      assertThat(slo.get("name").asText()).isEqualTo(fleet + ":checkout");
      assertThat(slo.get("scope").asText()).isEqualTo("fleet-wide, every process merged in Redis");
      for (JsonNode o : slo.get("objectives")) {
        assertThat(o.get("total").asLong()).as(o.toString()).isEqualTo(300);
        assertThat(o.get("good").asLong()).isBetween(0L, 300L);
        assertThat(o.get("sli").asDouble())
            .isCloseTo(o.get("good").asDouble() / 300, within(1e-12));
        assertThat(o.get("pagerWorker").asInt()).as("one worker pages").isBetween(0, 2);
      }
    }
  }

  /** Samples until the fleet's service level counts {@code total} and has a pager, within 10 s. */
  private static JsonNode awaitSlo(Dashboard dashboard, long total) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      dashboard.sample();
      JsonNode slo = dashboard.model().toJson().get("slo");
      boolean settled = true;
      for (JsonNode o : slo.get("objectives")) {
        settled &= o.get("total").asLong() == total && !o.get("pagerWorker").isNull();
      }
      if (settled || System.nanoTime() > deadline) {
        return slo;
      }
      Thread.sleep(50); // the mergers' tickers run in real time
    }
  }

  /**
   * Two dashboards (two "processes") given one fleet name see one window: each shows both's
   * requests.
   */
  @Test
  void fleet_twoDashboardsWithOneName_shareTheWindow() throws Exception {
    String fleet = "shared-" + System.nanoTime();
    ManualTimeSource timeA = new ManualTimeSource(0);
    ManualTimeSource timeB = new ManualTimeSource(555);
    try (Dashboard a = Dashboard.create(fleetOptions(fleet, "100", "2"), timeA, 0);
        Dashboard b = Dashboard.create(fleetOptions(fleet, "50", "1"), timeB, 0)) {
      timeA.advance(Duration.ofSeconds(2));
      timeB.advance(Duration.ofSeconds(2));
      assertThat(a.serveDue()).isEqualTo(200);
      assertThat(b.serveDue()).isEqualTo(100);
      assertThat(a.flush()).isTrue();
      assertThat(b.flush()).isTrue();

      assertThat(a.sample().longWindow().count()).isEqualTo(300);
      assertThat(b.sample().shortWindow().count()).isEqualTo(300);
    }
  }

  /**
   * The SLO burn rule reads "fraction above target" from percentiles: in the tail (under 24 %
   * above) the fleet view's grid keeps it within 0.5 %.
   */
  @Test
  void fleetView_fractionAboveTarget_isWithinTheGrid() {
    try (FleetWindows w =
        FleetWindows.connect(
            URI.create("redis://127.0.0.1:" + port), "fraction-" + System.nanoTime(), 1, 100)) {
      for (int ms = 1; ms <= 1000; ms++) {
        w.forWorker(0).get(1).record(ms * 1_000_000L);
      }
      assertThat(w.flush()).isTrue();

      WindowSnapshot s = w.longView().snapshot();

      assertThat(s.count()).isEqualTo(1000);
      for (long target : new long[] {760, 800, 905, 990, 996}) {
        double exact = (1000 - target) / 1000.0;
        assertThat(Measure.fractionAbove(target * 1_000_000L).of(s))
            .as("above %d ms", target)
            .isCloseTo(exact, within(0.005));
      }
    }
  }

  @Test
  void fleet_rawWindowFlag_keepsRawSamples_andShowsNoFreshness() throws Exception {
    ManualTimeSource time = new ManualTimeSource(0);
    Options options =
        Options.parse(
            "--rate",
            "100",
            "--workers",
            "2",
            "--redis",
            "redis://127.0.0.1:" + port,
            "--fleet",
            "raw-" + System.nanoTime(),
            "--fleet-window",
            "raw");
    try (Dashboard dashboard = Dashboard.create(options, time, 0)) {
      time.advance(Duration.ofSeconds(1));
      assertThat(dashboard.serveDue()).isEqualTo(100);
      assertThat(dashboard.flush()).isTrue();
      assertThat(dashboard.sample().longWindow().count()).isEqualTo(100);
      JsonNode d = dashboard.model().toJson();
      assertThat(d.get("mode").asText()).contains("raw-sample window");
      assertThat(d.has("fleet")).isFalse();
    }
  }

  @Test
  void fleetWindowFlag_isValidated() {
    assertThat(Options.parse("--redis", "redis://h:1").rawFleetWindow()).isFalse();
    assertThat(Options.parse("--redis", "redis://h:1", "--fleet-window", "raw").rawFleetWindow())
        .isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Options.parse("--redis", "redis://h:1", "--fleet-window", "exact"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--fleet-window must be histogram or raw, but was exact");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Options.parse("--fleet-window", "raw"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--fleet-window needs --redis");
  }

  private static Options fleetOptions(String fleet, String rate, String workers) {
    return Options.parse(
        "--duration",
        "30",
        "--rate",
        rate,
        "--workers",
        workers,
        "--redis",
        "redis://127.0.0.1:" + port,
        "--fleet",
        fleet);
  }

  @Test
  void fleet_unreachableRedis_failsToStartWithAClearError() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code =
        SlaDashboard.run(
            new String[] {"--duration", "2", "--redis", "redis://127.0.0.1:" + closedPort},
            new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
            new java.io.PrintStream(err, true));

    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).startsWith("Could not start the dashboard").contains("127.0.0.1");
  }
}
