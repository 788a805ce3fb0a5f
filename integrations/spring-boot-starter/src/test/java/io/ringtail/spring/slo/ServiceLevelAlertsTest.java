package io.ringtail.spring.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.SloConventions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * A real application (random port, real HTTP requests) with a service level declared by
 * configuration: 99 % of {@code /orders/**} requests not failing, over a 12-hour period, with the
 * workbook's two pages scaled to its period (14.4 over 1 minute with a 5-second short window, 6
 * over 6 minutes with 30 seconds). The service levels' time is a {@link ManualTimeSource} bean
 * advanced by the test, 100 ms per request (ten requests a second).
 *
 * <p>After six quiet minutes (the longest alert window), 3 requests in 10 fail: a burn rate of
 * {@code 0.3 / 0.01 = 30}. The workbook's detection time for the 1-minute page is {@code factor ×
 * longWindow / burnRate = 14.4 × 60 s / 30 = 28.8 s}, to which the evaluation interval (1 s here)
 * adds; its reset time after the burning stops is {@code shortWindow × (1 - factor / burnRate) = 5
 * s × (1 - 14.4 / 30) = 2.6 s}, plus the interval. The 6-minute page needs {@code 6 × 360 s / 30 =
 * 72 s} and must not fire in the half minute the fault lasts.
 */
class ServiceLevelAlertsTest {
  static ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<ConfigurableApplicationContext> apps = new ArrayList<>();

  /** The events the application published. */
  static final class Events {
    final List<ServiceLevelAlertEvent> seen = new CopyOnWriteArrayList<>();

    @EventListener
    void on(ServiceLevelAlertEvent event) {
      seen.add(event);
    }
  }

  /** Whoever is told of a page: what the docs' listener calls. */
  @FunctionalInterface
  interface Pager {
    void page(String what);
  }

  /** The docs' listener: pages the fires of page alerts. */
  static final class Pages {
    final List<String> paged = new CopyOnWriteArrayList<>();
    final Pager pager = paged::add;

    // docs:slo-event-listener:start
    @EventListener
    void onBurn(ServiceLevelAlertEvent e) {
      if (e.type() == ServiceLevelAlertEvent.Type.FIRED
          && e.severity() == BurnRateAlert.Severity.PAGE) {
        pager.page(e.serviceLevel() + "/" + e.objective() + " " + e.alert());
      }
    }
    // docs:slo-event-listener:end
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    final AtomicBoolean failing = new AtomicBoolean();

    @Bean(ServiceLevels.TIME_SOURCE)
    static TimeSource sloTime() {
      return time;
    }

    @Bean
    static Pages pages() {
      return new Pages();
    }

    @Bean
    static Events events() {
      return new Events();
    }

    /** Fails requests whose id ends in 0, 1 or 2 while failing. */
    @GetMapping("/orders/{id}")
    ResponseEntity<String> order(@PathVariable int id) {
      return failing.get() && id % 10 < 3
          ? ResponseEntity.status(503).body("down")
          : ResponseEntity.ok("order " + id);
    }

    @GetMapping("/ping")
    ResponseEntity<String> ping() {
      return ResponseEntity.status(500).body("not counted");
    }
  }

  static final String[] SLO = {
    "--ringtail.slo.checkout.paths=/orders/**",
    "--ringtail.slo.checkout.objectives.available.target=0.99",
    "--ringtail.slo.checkout.period=12h",
    "--ringtail.slo.checkout.alerts[0].factor=14.4",
    "--ringtail.slo.checkout.alerts[0].long-window=1m",
    "--ringtail.slo.checkout.alerts[0].short-window=5s",
    "--ringtail.slo.checkout.alerts[1].factor=6",
    "--ringtail.slo.checkout.alerts[1].long-window=6m",
    "--ringtail.slo.checkout.alerts[1].short-window=30s",
  };

  private ConfigurableApplicationContext start(String... more) {
    List<String> args = new ArrayList<>(List.of(SLO));
    args.add("--server.port=0");
    args.add("--spring.main.banner-mode=off");
    args.add("--management.endpoints.web.exposure.include=ringtail");
    args.addAll(List.of(more));
    ConfigurableApplicationContext app =
        SpringApplication.run(App.class, args.toArray(String[]::new));
    apps.add(app);
    return app;
  }

  @AfterEach
  void stop() {
    apps.forEach(ConfigurableApplicationContext::close);
  }

  private HttpResponse<String> get(ConfigurableApplicationContext app, String path)
      throws Exception {
    int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long recorded(ConfigurableApplicationContext app) {
    ServiceLevel slo = app.getBean(ServiceLevels.class).serviceLevel("checkout");
    return slo.status().objective("available").recorded().total();
  }

  /**
   * One request to {@code /orders/{id}}, waited for until its observation stopped (after the
   * response) and was recorded at the current time, then time moves 100 ms.
   */
  private void request(ConfigurableApplicationContext app, long[] sent) throws Exception {
    int id = (int) (sent[0] % 10);
    get(app, "/orders/" + id);
    sent[0]++;
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (recorded(app) != sent[0]) {
      assertThat(System.nanoTime()).as("request %s recorded", sent[0]).isLessThan(deadline);
      Thread.sleep(1);
    }
    time.advance(Duration.ofMillis(100));
  }

  /** A second of traffic, then one evaluation: what it published. */
  private List<ServiceLevelAlertEvent> second(ConfigurableApplicationContext app, long[] sent)
      throws Exception {
    for (int i = 0; i < 10; i++) {
      request(app, sent);
    }
    return app.getBean(ServiceLevels.class).evaluate();
  }

  @Test
  void aFault_pagesWithinTheDetectionTime_andResolvesWithinTheResetTime() throws Exception {
    time = new ManualTimeSource(1_000_000_000_000L);
    ConfigurableApplicationContext app = start("--ringtail.slo.checkout.evaluation-interval=1h");
    long[] sent = new long[1];
    // quiet for the longest alert window: the workbook's bounds hold after a quiet spell
    for (int s = 0; s < 360; s++) {
      assertThat(second(app, sent)).as("events in the quiet six minutes").isEmpty();
    }
    get(app, "/ping"); // another path: not counted
    assertThat(recorded(app)).isEqualTo(3600);

    app.getBean(App.class).failing.set(true);
    double detection =
        BurnRateAlert.page(14.4, Duration.ofMinutes(1), Duration.ofSeconds(5))
                .detectionTime(30)
                .orElseThrow()
                .toMillis()
            / 1e3;
    assertThat(detection).isEqualTo(28.8);
    List<ServiceLevelAlertEvent> fired = new ArrayList<>();
    int seconds = 0;
    while (fired.isEmpty() && seconds < 60) {
      fired.addAll(second(app, sent));
      seconds++;
    }
    // evaluated once a second: within the detection time plus that interval, and not before a
    // window 1/60 short with the fault's first second's three failures could reach the factor
    assertThat(seconds).as("seconds to the page").isBetween(27, 29);
    assertThat((double) seconds).isLessThanOrEqualTo(detection + 1);
    assertThat(fired)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(ServiceLevelAlertEvent.Type.FIRED);
              assertThat(e.serviceLevel()).isEqualTo("checkout");
              assertThat(e.objective()).isEqualTo("available");
              assertThat(e.alert()).isEqualTo("page-1m");
              assertThat(e.severity()).isEqualTo(BurnRateAlert.Severity.PAGE);
              assertThat(e.longBurnRate()).isGreaterThan(14.4);
              assertThat(e.shortBurnRate()).isBetween(25.0, 35.0);
            });
    assertThat(app.getBean(Events.class).seen).containsExactlyElementsOf(fired);
    assertThat(app.getBean(Pages.class).paged).containsExactly("checkout/available page-1m");

    // the state where users look: the gauges and the actuator endpoint
    MeterRegistry registry = app.getBean(MeterRegistry.class);
    Gauge budget = registry.find(SloConventions.BUDGET_REMAINING).tag("slo", "checkout").gauge();
    assertThat(budget).isNotNull();
    assertThat(budget.value()).isLessThan(1.0);
    Gauge firing = registry.find(SloConventions.ALERT_FIRING).tag("alert", "page-1m").gauge();
    assertThat(firing.value()).isEqualTo(1.0);
    String state = get(app, "/actuator/ringtail").body();
    assertThat(state)
        .contains("\"serviceLevels\"")
        .contains("\"name\":\"checkout\"")
        .contains("\"scope\":\"in-process\"")
        .contains("\"name\":\"page-1m\"")
        .contains("\"firing\":true,\"firedHere\":true");

    app.getBean(App.class).failing.set(false);
    double reset =
        BurnRateAlert.page(14.4, Duration.ofMinutes(1), Duration.ofSeconds(5))
                .resetTime(30)
                .toMillis()
            / 1e3;
    assertThat(reset).isEqualTo(2.6);
    List<ServiceLevelAlertEvent> resolved = new ArrayList<>();
    seconds = 0;
    while (resolved.isEmpty() && seconds < 60) {
      resolved.addAll(second(app, sent));
      seconds++;
    }
    assertThat((double) seconds).as("seconds to the resolve").isLessThanOrEqualTo(reset + 1);
    assertThat(resolved)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(ServiceLevelAlertEvent.Type.RESOLVED);
              assertThat(e.alert()).isEqualTo("page-1m");
            });
    // the 6-minute page needed 72 s of this burn: it never fired
    assertThat(app.getBean(Events.class).seen)
        .extracting(ServiceLevelAlertEvent::alert)
        .containsOnly("page-1m");
    assertThat(app.getBean(Events.class).seen).hasSize(2);
  }

  @Test
  void theScheduler_evaluatesOnItsOwn() throws Exception {
    time = new ManualTimeSource(1_000_000_000_000L);
    ConfigurableApplicationContext app = start("--ringtail.slo.checkout.evaluation-interval=20ms");
    app.getBean(App.class).failing.set(true);
    long[] sent = new long[1];
    for (int i = 0; i < 100; i++) { // ten seconds, all failing 3 in 10: both windows burn at 30
      request(app, sent);
    }
    Events events = app.getBean(Events.class);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (events.seen.isEmpty()) {
      assertThat(System.nanoTime()).as("a scheduled evaluation").isLessThan(deadline);
      Thread.sleep(10);
    }
    assertThat(events.seen)
        .first()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(ServiceLevelAlertEvent.Type.FIRED);
              assertThat(e.alert()).isEqualTo("page-1m");
            });
  }
}
