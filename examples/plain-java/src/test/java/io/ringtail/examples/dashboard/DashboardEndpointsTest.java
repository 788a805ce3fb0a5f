package io.ringtail.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringtail.ManualTimeSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DashboardEndpointsTest {
  private static final long EPOCH_MILLIS = 1_780_000_000_000L;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private ManualTimeSource time;
  private Dashboard dashboard;

  @BeforeEach
  void start() throws IOException {
    time = new ManualTimeSource(123_456_789L);
    dashboard =
        Dashboard.create(
            Options.parse("--duration", "30", "--rate", "400", "--workers", "2"),
            time,
            EPOCH_MILLIS);
    dashboard.startServer();
  }

  @AfterEach
  void stop() {
    dashboard.close();
  }

  /**
   * Runs the simulation for whole seconds in 100 ms steps, sampling once a second like the live
   * run.
   */
  static List<Point> drive(Dashboard dashboard, ManualTimeSource time, int seconds) {
    List<Point> points = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      for (int i = 0; i < 10; i++) {
        time.advance(Duration.ofMillis(100));
        dashboard.serveDue();
      }
      points.add(dashboard.sample());
    }
    return points;
  }

  @Test
  void stats_returnsSeriesAndCurrentValuesOfBothWindows() throws Exception {
    List<Point> points = drive(dashboard, time, 12);

    HttpResponse<String> r = get("/api/stats");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode d = json.readTree(r.body());

    assertThat(d.get("mode").asText()).isEqualTo("in-process");
    assertThat(d.get("rate").asInt()).isEqualTo(400);
    assertThat(d.get("elapsedSeconds").asDouble()).isCloseTo(12.0, within(1e-9));
    assertThat(d.get("regime").asText()).isEqualTo("degraded");
    JsonNode t = d.at("/series/time");
    assertThat(t).hasSize(12);
    for (int i = 0; i < 12; i++) {
      assertThat(t.get(i).asDouble()).isEqualTo((EPOCH_MILLIS + (i + 1) * 1000L) / 1000.0);
      Point p = points.get(i);
      assertThat(d.at("/series/short/count").get(i).asLong()).isEqualTo(p.shortWindow().count());
      assertThat(d.at("/series/long/count").get(i).asLong()).isEqualTo(p.longWindow().count());
      assertThat(d.at("/series/short/p95Millis").get(i).asDouble())
          .isEqualTo(p.shortWindow().p95Millis());
      assertThat(d.at("/series/long/p99Millis").get(i).asDouble())
          .isEqualTo(p.longWindow().p99Millis());
      assertThat(d.at("/series/long/meanMillis").get(i).asDouble())
          .isEqualTo(p.longWindow().meanMillis());
    }
    assertThat(d.at("/series/long/count").get(11).asLong()).isEqualTo(12 * 400);
    assertThat(d.at("/windows/long/current/count").asLong()).isEqualTo(12 * 400);
    assertThat(d.at("/windows/short/label").asText()).isEqualTo("10 s");
    assertThat(d.at("/windows/short/current/count").asLong()).isBetween(9L * 400, 10L * 400);
    double p95 = d.at("/windows/long/current/p95Millis").asDouble();
    assertThat(p95)
        .isGreaterThan(d.at("/windows/long/current/meanMillis").asDouble())
        .isLessThanOrEqualTo(d.at("/windows/long/current/p99Millis").asDouble());
  }

  @Test
  void stats_emptyWindow_reportsNullNotZero() throws Exception {
    dashboard.sample();

    JsonNode d = json.readTree(get("/api/stats").body());

    assertThat(d.at("/windows/short/current/count").asLong()).isZero();
    assertThat(d.at("/windows/short/current/p95Millis").isNull()).isTrue();
    assertThat(d.at("/windows/long/current/meanMillis").isNull()).isTrue();
    assertThat(d.at("/series/long/p99Millis").get(0).isNull()).isTrue();
    assertThat(d.at("/alert/state").asText()).isEqualTo("OK");
  }

  @Test
  void alerts_fireWhileDegraded_andTheShortWindowRuleResolvesAfterRecovery() throws Exception {
    List<Point> points = drive(dashboard, time, 30);

    JsonNode d = json.readTree(get("/api/stats").body());
    JsonNode alert = d.at("/series/alert");
    JsonNode regime = d.at("/series/regime");
    assertThat(alert).hasSize(30);
    for (int i = 0; i < 10; i++) {
      assertThat(regime.get(i).asText()).isEqualTo("normal");
      assertThat(alert.get(i).asInt()).as("second %d", i + 1).isZero();
    }
    int firstFiring = -1;
    for (int i = 0; i < 30 && firstFiring < 0; i++) {
      if (alert.get(i).asInt() == 1) {
        firstFiring = i;
      }
    }
    assertThat(firstFiring).as("an alert fires during the degraded phase").isBetween(10, 19);
    assertThat(regime.get(29).asText()).isEqualTo("recovered");
    assertThat(d.at("/alert/source").asText()).isEqualTo("io.ringtail.alert");

    JsonNode p95 = rule(d, DashboardAlerts.P95_RULE);
    assertThat(p95.get("state").asText())
        .as("10 s of recovered traffic clear the P95 rule")
        .isEqualTo("OK");
    assertThat(p95.get("description").asText()).contains("250 ms");
    assertThat(points.get(29).shortWindow().p95Millis()).isLessThan(200);
    JsonNode burn = rule(d, DashboardAlerts.BURN_RULE);
    assertThat(burn.get("state").asText())
        .as("the 60 s window still holds the degraded traffic")
        .isEqualTo("FIRING");
    assertThat(burn.get("sinceSeconds").asDouble()).isBetween(11.0, 20.0);
    assertThat(d.at("/alert/state").asText()).isEqualTo("FIRING");

    List<String> events = new ArrayList<>();
    d.at("/alert/events").forEach(e -> events.add(e.asText()));
    assertThat(events)
        .anyMatch(e -> e.contains("FIRED p95-10s"))
        .anyMatch(e -> e.contains("RESOLVED p95-10s"))
        .anyMatch(e -> e.contains("FIRED slo-burn-60s"));
    int fired =
        points.stream()
            .flatMap(p -> p.alertEvents().stream())
            .filter(e -> e.startsWith("FIRED p95-10s"))
            .toList()
            .size();
    assertThat(fired).as("hysteresis: the P95 rule fires once, not on every wobble").isEqualTo(1);

    JsonNode anomaly = rule(d, DashboardAlerts.ANOMALY_RULE);
    assertThat(anomaly.get("score").asDouble()).isBetween(0.0, 1.0);
    List<String> anomalyFired =
        points.stream()
            .flatMap(p -> p.alertEvents().stream())
            .filter(e -> e.startsWith("FIRED " + DashboardAlerts.ANOMALY_RULE))
            .toList();
    assertThat(anomalyFired)
        .as("the detector sees the degraded phase's shift in the mean")
        .isNotEmpty()
        .allMatch(e -> e.contains("score "));
  }

  private static JsonNode rule(JsonNode stats, String name) {
    for (JsonNode r : stats.at("/alert/rules")) {
      if (r.get("name").asText().equals(name)) {
        return r;
      }
    }
    throw new AssertionError("no rule " + name + " in " + stats.at("/alert/rules"));
  }

  @Test
  void metrics_exposeTheWindowsAsPrometheusGauges() throws Exception {
    Point p = drive(dashboard, time, 5).get(4);

    HttpResponse<String> r = get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
    String body = r.body();
    assertThat(metric(body, "ringtail_window_percentile_seconds", "phi=\"0.95\"", "window=\"10s\""))
        .isCloseTo(p.shortWindow().p95Millis() / 1000, within(1e-9));
    assertThat(metric(body, "ringtail_window_percentile_seconds", "phi=\"0.99\"", "window=\"60s\""))
        .isCloseTo(p.longWindow().p99Millis() / 1000, within(1e-9));
    assertThat(body).contains("service=\"checkout\"");
    assertThat(body)
        .containsPattern("(?m)^ringtail_window_\\w+\\{[^}]*window=\"60s\"[^}]*} 2000(\\.0)?$");
    for (JsonNode o : dashboard.model().toJson().at("/slo/objectives")) {
      String objective = "objective=\"" + o.get("name").asText() + "\"";
      assertThat(metric(body, "ringtail_slo_budget_remaining", objective, "slo=\"checkout\""))
          .as(objective)
          .isCloseTo(o.get("budgetRemaining").asDouble(), within(1e-9));
      assertThat(metric(body, "ringtail_slo_events_total", objective)).isEqualTo(2000);
    }
  }

  @Test
  void page_andUplotWebjar_areServedFromTheClasspath() throws Exception {
    HttpResponse<String> page = get("/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
    assertThat(page.body()).contains("/webjars/uplot/1.6.30/dist/uPlot.iife.min.js", "/api/stats");

    HttpResponse<String> js = get("/webjars/uplot/1.6.30/dist/uPlot.iife.min.js");
    assertThat(js.statusCode()).isEqualTo(200);
    assertThat(js.body()).contains("uPlot").hasSizeGreaterThan(40_000);
    assertThat(get("/webjars/uplot/1.6.30/dist/uPlot.min.css").statusCode()).isEqualTo(200);
  }

  @Test
  void unknownPathsAndEscapes_areNotFound() throws Exception {
    assertThat(get("/nope").statusCode()).isEqualTo(404);
    assertThat(get("/webjars/../io/ringtail/examples/dashboard/index.html").statusCode())
        .isEqualTo(404);
    assertThat(get("/webjars/uplot/1.6.30/dist/missing.js").statusCode()).isEqualTo(404);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(dashboard.url()).resolve(path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static double metric(String scrape, String name, String... labels) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(name + "{") && List.of(labels).stream().allMatch(line::contains)) {
        Matcher m = Pattern.compile("} (\\S+)$").matcher(line);
        assertThat(m.find()).isTrue();
        return Double.parseDouble(m.group(1));
      }
    }
    throw new AssertionError("no " + name + " " + List.of(labels) + " in\n" + scrape);
  }
}
