package io.ringtail.spring.slo;

import static io.ringtail.spring.slo.ServiceLevelAlertEvent.Type.FIRED;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.redis.RedisServiceLevel;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.slo.ObjectiveStatus;
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
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two instances of one web application on one real redis-server ({@code
 * ringtail.redis.enabled=true}), with the same service level declared: 99 % of {@code /orders/**}
 * not failing over 12 hours, paged at 14.4 over 1 minute with a 6-second short window (a fleet
 * window must be a whole multiple of 60 ms). Their time is one shared {@link ManualTimeSource} (a
 * base both instances share, as a fleet's must be), ten requests a second spread over both.
 *
 * <p>Both read the fleet's budget; when 3 requests in 10 fail (burn rate 30) the page fires within
 * the workbook's detection time ({@code 14.4 × 60 s / 30 = 28.8 s}, plus the 1-second evaluation
 * interval), published once for the fleet, by the instance that owns the objective, and resolves
 * once within the reset time ({@code 6 s × (1 - 14.4 / 30) = 3.12 s}, plus the interval).
 */
class FleetServiceLevelAlertsTest {
  static final ManualTimeSource TIME = new ManualTimeSource(1_000_000_000_000L);

  private final HttpClient http = HttpClient.newHttpClient();
  private RedisProcess server;
  private final List<ConfigurableApplicationContext> pods = new ArrayList<>();

  /** The events one pod published. */
  static final class Events {
    final List<ServiceLevelAlertEvent> seen = new CopyOnWriteArrayList<>();

    @EventListener
    void on(ServiceLevelAlertEvent event) {
      seen.add(event);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    static final AtomicBoolean FAILING = new AtomicBoolean();

    @Bean(ServiceLevels.TIME_SOURCE)
    static TimeSource sloTime() {
      return TIME;
    }

    @Bean
    static Events events() {
      return new Events();
    }

    @GetMapping("/orders/{id}")
    ResponseEntity<String> order(@PathVariable int id) {
      return FAILING.get() && id % 10 < 3
          ? ResponseEntity.status(503).body("down")
          : ResponseEntity.ok("order " + id);
    }
  }

  @BeforeEach
  void startRedis() {
    server = RedisProcess.start();
    App.FAILING.set(false);
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
            "--ringtail.observations.enabled=false",
            "--ringtail.slo.checkout.paths=/orders/**",
            "--ringtail.slo.checkout.objectives.available.target=0.99",
            "--ringtail.slo.checkout.period=12h",
            "--ringtail.slo.checkout.alerts[0].factor=14.4",
            "--ringtail.slo.checkout.alerts[0].long-window=1m",
            "--ringtail.slo.checkout.alerts[0].short-window=6s",
            "--ringtail.slo.checkout.publish-interval=20ms",
            "--ringtail.slo.checkout.evaluation-interval=1h");
    pods.add(pod);
    return pod;
  }

  private ConfigurableApplicationContext first; // own[0] counts its requests, own[1] the other's

  private static RedisServiceLevel slo(ConfigurableApplicationContext pod) {
    return (RedisServiceLevel) pod.getBean(ServiceLevels.class).serviceLevel("checkout");
  }

  private static ObjectiveStatus status(ConfigurableApplicationContext pod) {
    return slo(pod).status().objective("available");
  }

  private void get(ConfigurableApplicationContext pod, String path) throws Exception {
    int port = Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
    http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Polls, bounded, until {@code condition} holds. */
  private static void await(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  /**
   * A second of traffic, five requests to each pod alternately, each recorded at its time; then
   * every count is published and merged (both pods read all of them), and both pods evaluate.
   */
  private List<ServiceLevelAlertEvent> second(long[] sent, long[] own) throws Exception {
    for (int i = 0; i < 10; i++) {
      int p = i % pods.size();
      ConfigurableApplicationContext pod = pods.get(p);
      get(pod, "/orders/" + (sent[0] % 10));
      sent[0]++;
      int index = pod == first ? 0 : 1;
      own[index]++;
      await("request recorded", () -> status(pod).recorded().total() == own[index]);
      TIME.advance(Duration.ofMillis(100));
    }
    for (ConfigurableApplicationContext pod : pods) {
      assertThat(slo(pod).flush(Duration.ofSeconds(5))).isTrue();
    }
    for (ConfigurableApplicationContext pod : pods) {
      await(
          "the fleet's " + sent[0] + " requests",
          () -> {
            // every pod flushes: the merger of each tier's group writes its summary then
            pods.forEach(p -> slo(p).flush(Duration.ofSeconds(5)));
            return status(pod).periodCounts().total() == sent[0];
          });
    }
    List<ServiceLevelAlertEvent> events = new ArrayList<>();
    for (ConfigurableApplicationContext pod : pods) {
      events.addAll(pod.getBean(ServiceLevels.class).evaluate());
    }
    return events;
  }

  @Test
  void twoInstances_seeOneBudget_andAFaultPagesOnceForTheFleet() throws Exception {
    ConfigurableApplicationContext podA = pod();
    ConfigurableApplicationContext podB = pod();
    first = podA;
    long[] sent = new long[1];
    long[] own = new long[2];
    for (int s = 0; s < 60; s++) {
      assertThat(second(sent, own)).as("events in the quiet minute").isEmpty();
    }
    await(
        "one owner of the objective",
        () -> slo(podA).owns("available") != slo(podB).owns("available"));
    ConfigurableApplicationContext owner = slo(podA).owns("available") ? podA : podB;

    App.FAILING.set(true);
    List<ServiceLevelAlertEvent> fired = new ArrayList<>();
    int seconds = 0;
    while (fired.isEmpty() && seconds < 60) {
      fired.addAll(second(sent, own));
      seconds++;
    }
    assertThat((double) seconds).as("seconds to the page").isLessThanOrEqualTo(28.8 + 1);
    assertThat(seconds).as("not before the long window could reach it").isGreaterThanOrEqualTo(27);
    assertThat(fired)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(ServiceLevelAlertEvent.Type.FIRED);
              assertThat(e.alert()).isEqualTo("page-1m");
            });
    // one budget: both pods read the fleet's counts, each its own recorded share
    ObjectiveStatus a = status(podA);
    ObjectiveStatus b = status(podB);
    assertThat(a.periodCounts()).isEqualTo(b.periodCounts());
    assertThat(a.periodCounts().total()).isEqualTo(sent[0]);
    assertThat(a.budgetRemaining()).isEqualTo(b.budgetRemaining()).isLessThan(1.0);
    assertThat(a.recorded().total() + b.recorded().total()).isEqualTo(sent[0]);
    assertThat(a.firing()).hasSize(1);
    assertThat(b.firing()).hasSize(1);
    // paged once, by the owner
    assertThat(owner.getBean(Events.class).seen).containsExactlyElementsOf(fired);
    ConfigurableApplicationContext other = owner == podA ? podB : podA;
    assertThat(other.getBean(Events.class).seen).isEmpty();

    App.FAILING.set(false);
    List<ServiceLevelAlertEvent> resolved = new ArrayList<>();
    seconds = 0;
    while (resolved.isEmpty() && seconds < 60) {
      resolved.addAll(second(sent, own));
      seconds++;
    }
    assertThat((double) seconds).as("seconds to the resolve").isLessThanOrEqualTo(3.12 + 1);
    assertThat(resolved)
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(ServiceLevelAlertEvent.Type.RESOLVED));
    assertThat(owner.getBean(Events.class).seen).hasSize(2);
    assertThat(other.getBean(Events.class).seen).isEmpty();
  }

  @Test
  void whenTheOwnerStops_theNextOwnerGoesOnFromItsFire_neitherPagingItAgainNorLeavingIt()
      throws Exception {
    ConfigurableApplicationContext podA = pod();
    ConfigurableApplicationContext podB = pod();
    first = podA;
    long[] sent = new long[1];
    long[] own = new long[2];
    for (int s = 0; s < 60; s++) {
      assertThat(second(sent, own)).as("events in the quiet minute").isEmpty();
    }
    await(
        "one owner of the objective",
        () -> slo(podA).owns("available") != slo(podB).owns("available"));
    ConfigurableApplicationContext owner = slo(podA).owns("available") ? podA : podB;
    ConfigurableApplicationContext survivor = owner == podA ? podB : podA;
    App.FAILING.set(true);
    List<ServiceLevelAlertEvent> fired = new ArrayList<>();
    for (int seconds = 0; fired.isEmpty() && seconds < 60; seconds++) {
      fired.addAll(second(sent, own));
    }
    assertThat(fired).singleElement().satisfies(e -> assertThat(e.type()).isEqualTo(FIRED));

    // the owner stops while the page fires: the survivor takes the objective over, fault going on
    pods.remove(owner);
    owner.close();
    List<ServiceLevelAlertEvent> later = new ArrayList<>();
    for (int s = 0; s < 3; s++) {
      later.addAll(second(sent, own));
    }
    await("the survivor owns the objective", () -> slo(survivor).owns("available"));
    later.addAll(second(sent, own));
    assertThat(later).as("the fire is not paged again").isEmpty();
    App.FAILING.set(false);
    for (int seconds = 0; later.isEmpty() && seconds < 60; seconds++) {
      later.addAll(second(sent, own));
    }
    assertThat(later)
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(ServiceLevelAlertEvent.Type.RESOLVED));
    assertThat(survivor.getBean(Events.class).seen).containsExactlyElementsOf(later);
  }
}
