package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.slo.AlertStatus;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.EventCounts;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fleet-wide service levels on a dedicated real redis-server: what two or three processes record is
 * read by each of them, and by a process started later, as exact counts over every window, so the
 * SLI, the budget, the burn rates and the alerts equal an exact model's; one process pages.
 */
class RedisServiceLevelTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final long T0 = 1_000_000_000_000_000L;

  /** An interval no ticker reaches while a test runs: the test's own calls publish and merge. */
  private static final Duration QUIET = Duration.ofMinutes(1);

  /** Windows 1m, 5m (tier of 1 s buckets), 30m and the 1 h period (tier of 30 s buckets). */
  private static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.9)
          .availability("ok", 0.95)
          .period(Duration.ofHours(1))
          .alerts(
              BurnRateAlert.page(5, Duration.ofMinutes(5), Duration.ofMinutes(1)),
              BurnRateAlert.ticket(1.5, Duration.ofMinutes(30), Duration.ofMinutes(5)))
          .build();

  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();

  @BeforeEach
  void start() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() {
    for (RedisClient c : clients) {
      RedisTestSupport.shutdown(c);
    }
    server.close();
  }

  /** A backend over a connection of its own: one process of the fleet. */
  private RedisBackend backend() {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    return RedisBackend.builder(client.connect(server.uri())).commandTimeout(TIMEOUT).build();
  }

  private RedisServiceLevel process(ServiceLevelConfig config, ManualTimeSource time) {
    return backend().serviceLevelBuilder(config).timeSource(time).publishInterval(QUIET).build();
  }

  /** Every process flushes, then ticks: each tier's merger summarises as of now. */
  private static void settle(List<RedisServiceLevel> processes) throws Exception {
    for (RedisServiceLevel p : processes) {
      assertThat(p.flush(TIMEOUT)).as("flushed").isTrue();
    }
    for (RedisServiceLevel p : processes) {
      for (RedisKeyedHistogramWindows w : p.tierWindows()) {
        w.tick().get(5, TimeUnit.SECONDS);
      }
    }
  }

  /** Every event recorded, by time: the exact counts of any interval. */
  private static final class Model {
    final List<long[]> events = new ArrayList<>(); // time, latency, failed

    void record(long time, long latency, boolean failed) {
      events.add(new long[] {time, latency, failed ? 1 : 0});
    }

    EventCounts between(long from, long to, Objective objective) {
      long good = 0;
      long total = 0;
      for (long[] e : events) {
        if (e[0] >= from && e[0] <= to) {
          total++;
          if (objective.isGood(e[1], e[2] == 1)) {
            good++;
          }
        }
      }
      return new EventCounts(good, total);
    }
  }

  /**
   * Each window at {@code now}: its live partial bucket of its tier and the complete ones before
   * it, as the in-process service level's windows are (but in the tier's buckets).
   */
  private static Map<Duration, EventCounts> exact(
      Model model, Objective objective, long now, Map<Duration, Long> widths) {
    Map<Duration, EventCounts> counts = new HashMap<>();
    for (Duration w : CONFIG.windows()) {
      long width = widths.get(w);
      long first = Math.floorDiv(now, width) - w.toNanos() / width + 1;
      counts.put(w, model.between(first * width, now, objective));
    }
    return counts;
  }

  private static void assertStatus(
      ServiceLevelStatus status, Model model, long now, Map<Duration, Long> widths) {
    assertThat(status.timeNanos()).isEqualTo(now);
    for (Objective o : CONFIG.objectives()) {
      ObjectiveStatus fleet = status.objective(o.name());
      Map<Duration, EventCounts> exact = exact(model, o, now, widths);
      ObjectiveStatus expected = ObjectiveStatus.of(CONFIG, o, exact, EventCounts.NONE);
      for (Duration w : CONFIG.windows()) {
        assertThat(fleet.counts(w)).as(o.name() + " over " + w).isEqualTo(exact.get(w));
      }
      assertThat(fleet.sli()).isEqualTo(expected.sli());
      assertThat(fleet.budgetRemaining()).isEqualTo(expected.budgetRemaining());
      assertThat(fleet.burnRates()).isEqualTo(expected.burnRates());
      assertThat(fleet.firing().stream().map(AlertStatus::alert).toList())
          .isEqualTo(expected.firing().stream().map(AlertStatus::alert).toList());
    }
  }

  /**
   * Three processes record a random stream over random time (bursts of failures and slow requests,
   * idle gaps, a gap longer than the period); one is restarted halfway (a new backend, counting
   * from nothing). Whenever they settle, every process's status, and a status read by a process
   * that recorded nothing, equal the exact model's counts over every window, with the SLI, budget,
   * burn rates and alerts they imply; and exactly one live process owns each objective.
   */
  @Test
  void status_ofEveryProcess_equalsAnExactModelOfTheFleet_onARandomStream() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    Map<Duration, Long> widths = new HashMap<>();
    for (ServiceLevelTiers.Tier t : ServiceLevelTiers.of(CONFIG)) {
      t.windows().forEach(w -> widths.put(w, t.width().toNanos()));
    }
    List<RedisServiceLevel> processes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      processes.add(process(CONFIG, time));
    }
    Model model = new Model();
    SplittableRandom random = new SplittableRandom(50);
    int checks = 0;
    int firing = 0;
    boolean restarted = false;
    double badness = 0.05;
    for (int op = 0; op < 5_000; op++) {
      int dice = random.nextInt(1000);
      if (dice < 100) {
        time.advance(Duration.ofMillis(random.nextInt(0, 20_000)));
      } else if (dice < 105) {
        time.advance(Duration.ofMillis(random.nextInt(0, 1_200_000)));
      } else if (dice < 106) {
        time.advance(Duration.ofMinutes(61)); // longer than the period: everything leaves it
      } else if (dice < 120) {
        badness = random.nextDouble() < 0.5 ? 0.02 : random.nextDouble(); // a fault, or calm
      } else if (dice < 985) {
        long latency =
            random.nextDouble() < badness
                ? random.nextLong(300_000_001, 2_000_000_000)
                : random.nextLong(0, 300_000_001);
        boolean failed = random.nextDouble() < badness / 2;
        processes.get(random.nextInt(processes.size())).record(latency, failed);
        model.record(time.nanoTime(), latency, failed);
      } else {
        settle(processes);
        long now = time.nanoTime();
        for (RedisServiceLevel p : processes) {
          ServiceLevelStatus s = p.status();
          assertStatus(s, model, now, widths);
          firing += s.objectives().stream().mapToInt(o -> o.firing().size()).sum();
        }
        for (Objective o : CONFIG.objectives()) {
          assertThat(processes.stream().filter(p -> p.owns(o.name())).count())
              .as("processes owning " + o.name())
              .isEqualTo(1);
        }
        checks++;
        if (!restarted && op > 2_500) {
          // a restart: the process's unpublished counts were flushed by settle; its successor
          // starts from nothing of its own and reads the fleet's counts at once
          assertThat(processes.get(0).close()).isTrue();
          RedisServiceLevel successor = process(CONFIG, time);
          assertStatus(successor.status(), model, now, widths);
          assertThat(successor.status().objective("fast").recorded()).isEqualTo(EventCounts.NONE);
          processes.set(0, successor);
          restarted = true;
        }
      }
    }
    assertThat(restarted).isTrue();
    assertThat(checks).isGreaterThan(30);
    assertThat(firing).as("alerts seen firing").isPositive();
    for (RedisServiceLevel p : processes) {
      p.close();
    }
  }

  /** The workbook's windows over 30 days: four tiers, every window at least 60 of its buckets. */
  @Test
  void tiers_ofTheWorkbook_keepEveryWindowAtLeastSixtyBuckets() {
    ServiceLevelConfig workbook =
        ServiceLevelConfig.builder("checkout").availability("ok", 0.999).build();
    List<ServiceLevelTiers.Tier> tiers = ServiceLevelTiers.of(workbook);
    assertThat(tiers)
        .extracting(ServiceLevelTiers.Tier::width)
        .containsExactly(
            Duration.ofSeconds(5),
            Duration.ofMinutes(1),
            Duration.ofMinutes(72),
            Duration.ofHours(12));
    assertThat(tiers.get(0).windows())
        .containsExactly(Duration.ofMinutes(5), Duration.ofMinutes(30));
    assertThat(tiers.get(1).windows()).containsExactly(Duration.ofHours(1), Duration.ofHours(6));
    for (ServiceLevelTiers.Tier t : tiers) {
      assertThat(t.buckets()).isBetween(60, ServiceLevelTiers.MAX_BUCKETS);
      for (Duration w : t.windows()) {
        assertThat(w.toNanos() % t.width().toNanos()).isZero();
        assertThat(w.toNanos() / t.width().toNanos()).isGreaterThanOrEqualTo(60);
      }
    }
  }

  /** A window that 60 buckets of whole milliseconds cannot divide fails the build, named. */
  @Test
  void serviceLevel_windowNotAMultipleOf60ms_isRejectedNamingTheField() {
    RedisBackend backend = backend();
    ServiceLevelConfig period =
        ServiceLevelConfig.builder("s")
            .availability("ok", 0.99)
            .period(Duration.ofSeconds(1))
            .alerts()
            .build();
    assertThatThrownBy(() -> backend.serviceLevel(period))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "period must be a whole multiple of 60 ms in a fleet service level (60 buckets of whole"
                + " milliseconds), but was PT1S");
    ServiceLevelConfig shortWindow =
        ServiceLevelConfig.builder("s")
            .availability("ok", 0.99)
            .period(Duration.ofMinutes(1))
            .alerts(BurnRateAlert.page(2, Duration.ofSeconds(30), Duration.ofMillis(1_010)))
            .build();
    assertThatThrownBy(() -> backend.serviceLevel(shortWindow))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("alerts[page-30s].shortWindow must be a whole multiple of 60 ms");
    assertThatThrownBy(() -> backend.serviceLevel(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("config");
    RedisServiceLevel slo = backend.serviceLevelBuilder(CONFIG).publishInterval(QUIET).build();
    assertThatThrownBy(() -> slo.owns("slow"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("objective must be the name of an objective of checkout, but was \"slow\"");
    assertThatThrownBy(() -> backend.serviceLevelBuilder(CONFIG).publishInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("publishInterval");
    slo.close();
  }

  /** What docs/slo.md shows of a fleet-wide service level, run on a real server. */
  @Test
  void theDocsExample_recordsLocally_readsTheFleet_andOneProcessPages() throws Exception {
    ServiceLevelConfig checkout =
        ServiceLevelConfig.builder("checkout")
            .latency("fast", Duration.ofMillis(300), 0.99)
            .alerts(BurnRateAlert.page(14.4, Duration.ofMinutes(1), Duration.ofSeconds(6)))
            .period(Duration.ofHours(1))
            .build();
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    StatefulRedisConnection<String, String> connection = client.connect(server.uri());
    List<List<AlertStatus>> pages = new ArrayList<>();
    Pager pager = pages::add;
    long latencyNanos = 900_000_000L; // every request too slow: a burn rate of 100
    boolean failed = false;
    // docs:fleet-slo:start
    RedisBackend redis = RedisBackend.builder(connection).build();
    RedisServiceLevel slo =
        redis.serviceLevel(checkout); // or serviceLevelBuilder(checkout)...build()
    slo.record(latencyNanos, failed); // local: no Redis call, no lock, no allocation
    ObjectiveStatus fast = slo.status().objective("fast"); // the fleet's, one MGET per tier
    if (!fast.firing().isEmpty() && slo.owns("fast")) {
      pager.page(fast.firing()); // one process of the fleet pages
    }
    // docs:fleet-slo:end
    assertThat(slo.flush(TIMEOUT)).isTrue();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (slo.status().objective("fast").periodCounts().total() < 1
        && System.nanoTime() < deadline) {
      slo.flush(TIMEOUT);
    }
    assertThat(slo.status().objective("fast").periodCounts().total()).isEqualTo(1);
    assertThat(slo.status().objective("fast").periodCounts().good()).isZero();
    slo.close();
  }

  /** Whoever is told of a page: what the docs' example calls. */
  @FunctionalInterface
  interface Pager {
    void page(List<AlertStatus> firing);
  }
}
