package io.ringtail.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.slo.AlertStatus;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's service level: its JSON against a naive exact model of every recorded request,
 * and the degraded regime firing the page alert within the workbook's detection time.
 */
class DashboardSloTest {
  private static final long START = 123_456_789L;
  private static final int WORKERS = 2;
  private final ObjectMapper json = new ObjectMapper();
  private final List<Event> events = new ArrayList<>();
  private ManualTimeSource time;
  private Options options;
  private Dashboard dashboard;

  /** One recorded request, as the naive model keeps it. */
  record Event(long timeNanos, long latencyNanos, boolean failed) {}

  @BeforeEach
  void start() throws IOException {
    time = new ManualTimeSource(START);
    options = Options.parse("--duration", "30", "--rate", "400", "--workers", "2");
    ServiceLevelConfig config = DashboardSlo.config("checkout", options.sloMillis());
    DashboardWindows base = DashboardWindows.inProcess(WORKERS, time, config);
    ServiceLevel tee = new Tee(base.serviceLevelView(), time, events);
    List<List<io.ringtail.RollingWindow>> perWorker = new ArrayList<>();
    List<io.ringtail.keyed.KeyedWindows> routes = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      perWorker.add(base.forWorker(i));
      routes.add(base.routesForWorker(i));
    }
    DashboardWindows windows =
        new DashboardWindows(
            base.mode(),
            base.shortView(),
            base.longView(),
            perWorker,
            base.routesView(),
            routes,
            base.serviceLevelView(),
            Collections.nCopies(WORKERS, tee));
    dashboard = Dashboard.create(options, windows, time, 1_780_000_000_000L);
    dashboard.startServer();
  }

  @AfterEach
  void stop() {
    dashboard.close();
  }

  @Test
  void config_isTheWorkbookThousandTimesShorter_andFitsFleetBuckets() {
    // docs:dashboard-slo:start
    List<BurnRateAlert> alerts = new ArrayList<>();
    for (BurnRateAlert a : BurnRateAlert.workbook()) { // every window 1000 times shorter
      alerts.add(
          BurnRateAlert.of(
              a.severity(),
              a.factor(),
              a.longWindow().dividedBy(1000),
              a.shortWindow().dividedBy(1000)));
    }
    ServiceLevelConfig checkout =
        ServiceLevelConfig.builder("checkout")
            .latency("fast", Duration.ofMillis(250), 0.99) // 99 % at most --slo-ms
            .availability("available", 0.999) // 99.9 % not failed
            .period(Duration.ofDays(30).dividedBy(1000)) // 43 min 12 s
            .alerts(alerts)
            .build();
    // docs:dashboard-slo:end
    ServiceLevelConfig c = DashboardSlo.config("checkout", 250);
    assertThat(c.toString()).isEqualTo(checkout.toString());
    assertThat(c.objectives()).isEqualTo(checkout.objectives());
    assertThat(c.alerts()).isEqualTo(checkout.alerts());

    assertThat(c.period()).isEqualTo(Duration.ofMillis(2_592_000));
    assertThat(c.alerts())
        .containsExactly(
            BurnRateAlert.page(14.4, Duration.ofMillis(3_600), Duration.ofMillis(300)),
            BurnRateAlert.page(6, Duration.ofMillis(21_600), Duration.ofMillis(1_800)),
            BurnRateAlert.ticket(1, Duration.ofMillis(259_200), Duration.ofMillis(21_600)));
    assertThat(c.alerts().get(0).budgetConsumed(c.period())).isCloseTo(0.02, within(1e-12));
    assertThat(c.windows()).allMatch(w -> w.toMillis() % 60 == 0 && w.toNanos() % 1_000_000 == 0);
    assertThat(c.objective(DashboardSlo.LATENCY).orElseThrow().threshold())
        .contains(Duration.ofMillis(250));
  }

  /** At instants in each regime, every figure of the JSON is the naive model's. */
  @Test
  void stats_sloMatchesANaiveExactModel() throws Exception {
    ServiceLevelConfig config = dashboard.model().slo().config();
    int[] checks = {1, 5, 12, 16, 21, 30};
    int done = 0;
    for (int at : checks) {
      DashboardEndpointsTest.drive(dashboard, time, at - done);
      done = at;
      JsonNode slo = stats().get("slo");
      long now = time.nanoTime();

      assertThat(slo.get("name").asText()).isEqualTo("checkout");
      assertThat(slo.get("scope").asText()).isEqualTo("this process");
      assertThat(slo.get("periodSeconds").asDouble()).isEqualTo(2592.0);
      assertThat(slo.get("objectives")).hasSize(2);
      for (JsonNode o : slo.get("objectives")) {
        Objective objective = config.objective(o.get("name").asText()).orElseThrow();
        String what = objective.name() + " at " + at + " s";
        long[] period = counts(objective, config.period(), now);
        assertThat(o.get("total").asLong()).as(what).isEqualTo(period[1]).isPositive();
        assertThat(o.get("good").asLong()).as(what).isEqualTo(period[0]);
        assertThat(o.get("sli").asDouble())
            .as(what)
            .isCloseTo((double) period[0] / period[1], within(1e-12));
        assertThat(o.get("budgetRemaining").asDouble())
            .as(what)
            .isCloseTo(1 - burn(objective, period), within(1e-9));
        JsonNode rates = o.get("burnRates");
        assertThat(rates).hasSize(config.windows().size());
        for (JsonNode r : rates) {
          Duration w = Duration.ofMillis(Math.round(r.get("windowSeconds").asDouble() * 1000));
          double expected = burn(objective, counts(objective, w, now));
          if (Double.isNaN(expected)) {
            assertThat(r.get("burnRate").isNull()).as(what + " " + w).isTrue();
          } else {
            assertThat(r.get("burnRate").asDouble())
                .as(what + " over " + w)
                .isCloseTo(expected, within(1e-9));
          }
        }
        JsonNode alerts = o.get("alerts");
        assertThat(alerts).hasSize(config.alerts().size());
        for (int i = 0; i < config.alerts().size(); i++) {
          BurnRateAlert a = config.alerts().get(i);
          double longBurn = burn(objective, counts(objective, a.longWindow(), now));
          double shortBurn = burn(objective, counts(objective, a.shortWindow(), now));
          assertThat(alerts.get(i).get("name").asText()).isEqualTo(a.name());
          assertThat(alerts.get(i).get("firing").asBoolean())
              .as(what + " " + a.name())
              .isEqualTo(longBurn > a.factor() && shortBurn > a.factor());
        }
      }
    }
    assertThat(events).as("every request, once").hasSize((int) dashboard.served());
  }

  /**
   * The degraded regime (10.5 s to 19.5 s of 30) fires each objective's page alert within the
   * workbook's detection time {@code factor × longWindow / burnRate} of its start, plus the second
   * between samples; nothing pages before; the page resolves after recovery and the ticket, whose
   * windows still hold the degraded requests, goes on firing.
   */
  @Test
  void degradedRegime_firesThePageWithinTheDetectionTime() throws Exception {
    List<Point> points = DashboardEndpointsTest.drive(dashboard, time, 30);
    ServiceLevelConfig config = dashboard.model().slo().config();
    BurnRateAlert page = config.alerts().get(0);
    SimulatedService service = new SimulatedService(options.duration());
    long degradedFrom = (long) (SimulatedService.DEGRADED_FROM * options.duration().toNanos());
    long recoveredFrom = (long) (SimulatedService.RECOVERED_FROM * options.duration().toNanos());

    for (Objective objective : config.objectives()) {
      long bad = 0;
      long total = 0;
      for (Event e : events) {
        if (service.regimeAt(e.timeNanos() - START) == Regime.DEGRADED) {
          total++;
          bad += objective.isGood(e.latencyNanos(), e.failed()) ? 0 : 1;
        }
      }
      double burnRate = (double) bad / total / objective.budget();
      Duration detection = page.detectionTime(burnRate).orElseThrow();
      long firstFiring = -1;
      for (Point p : points) {
        boolean firing =
            p.slo().objective(objective.name()).firing().stream()
                .map(AlertStatus::alert)
                .anyMatch(page::equals);
        if (firing && firstFiring < 0) {
          firstFiring = p.elapsedNanos();
        }
      }
      String what = objective.name() + " at burn rate " + burnRate;
      assertThat(burnRate).as(what).isGreaterThan(page.factor());
      assertThat(firstFiring)
          .as(what + ": pages, not before the fault")
          .isGreaterThan(degradedFrom);
      assertThat(firstFiring - degradedFrom)
          .as(what + ": within %s and a sample interval", detection)
          .isLessThanOrEqualTo(detection.plusSeconds(1).toNanos());
      Point last = points.get(points.size() - 1);
      assertThat(last.elapsedNanos() - recoveredFrom)
          .isGreaterThan(page.resetTime(burnRate).plusSeconds(1).toNanos());
      List<String> firingAtEnd =
          last.slo().objective(objective.name()).firing().stream()
              .map(a -> a.alert().name())
              .toList();
      assertThat(firingAtEnd).as(what + " after recovery").containsExactly("ticket-4m19s200ms");
    }
    assertThat(points.get(9).sloState()).isEqualTo("ok");
    assertThat(points.get(14).sloState()).isEqualTo("page");
    assertThat(points.get(29).sloState()).isEqualTo("ticket");
    assertThat(points.stream().flatMap(p -> p.alertEvents().stream()))
        .anyMatch(e -> e.startsWith("slo FIRED page fast/page-3s600ms (burn rate "))
        .anyMatch(e -> e.startsWith("slo RESOLVED page available/page-3s600ms"));

    JsonNode slo = stats().get("slo");
    assertThat(slo.get("state").asText()).isEqualTo("ticket");
    assertThat(slo.get("events").toString()).contains("FIRED page fast/page-3s600ms");
  }

  /** Good and total events of {@code objective} in {@code window} read at {@code now}. */
  private long[] counts(Objective objective, Duration window, long now) {
    long width = window.toNanos() / 60;
    long from = (Math.floorDiv(now, width) - 59) * width;
    long good = 0;
    long total = 0;
    for (Event e : events) {
      if (e.timeNanos() >= from && e.timeNanos() <= now) {
        total++;
        boolean ok =
            objective.kind() == Objective.Kind.AVAILABILITY
                ? !e.failed()
                : e.latencyNanos() <= objective.threshold().orElseThrow().toNanos();
        good += ok ? 1 : 0;
      }
    }
    return new long[] {good, total};
  }

  private static double burn(Objective objective, long[] counts) {
    if (counts[1] == 0) {
      return Double.NaN;
    }
    return ((double) (counts[1] - counts[0]) / counts[1]) / (1 - objective.target());
  }

  private JsonNode stats() throws IOException, InterruptedException {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(dashboard.url() + "api/stats"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return json.readTree(r.body());
  }

  /** Records into the dashboard's service level and into the naive model's list. */
  private record Tee(ServiceLevel delegate, TimeSource time, List<Event> events)
      implements ServiceLevel {
    @Override
    public void record(long latencyNanos, boolean failed) {
      events.add(new Event(time.nanoTime(), latencyNanos, failed));
      delegate.record(latencyNanos, failed);
    }

    @Override
    public void recordAt(long latencyNanos, boolean failed, long timeNanos) {
      events.add(new Event(timeNanos, latencyNanos, failed));
      delegate.recordAt(latencyNanos, failed, timeNanos);
    }

    @Override
    public ServiceLevelStatus status() {
      return delegate.status();
    }

    @Override
    public ServiceLevelConfig config() {
      return delegate.config();
    }

    @Override
    public TimeSource timeSource() {
      return delegate.timeSource();
    }

    @Override
    public long footprintBytes() {
      return delegate.footprintBytes();
    }
  }
}
