package io.ringtail.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The in-process service level against {@link ExactSloModel} on seeded random streams: counts of
 * every objective over every window, SLI, budget, burn rates and alert conditions, at random
 * instants, through regimes of faults, idle days, and a gap longer than the period.
 */
class InProcessServiceLevelModelTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long HOUR = 3600 * SECOND;
  private static final long DAY = 24 * HOUR;

  /** The workbook's alerts over 30 days, with three objectives. */
  static final ServiceLevelConfig WORKBOOK =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .latency("not-slow", Duration.ofSeconds(1), 0.999)
          .availability("available", 0.999)
          .build();

  /** Short windows (seconds to an hour), one objective of each kind, awkward lengths. */
  static final ServiceLevelConfig SHORT =
      ServiceLevelConfig.builder("search")
          .latency("fast", Duration.ofMillis(250), 0.95)
          .availability("available", 0.99)
          .period(Duration.ofMinutes(70))
          .alerts(
              BurnRateAlert.page(14.4, Duration.ofMinutes(5), Duration.ofSeconds(25)),
              BurnRateAlert.page(6, Duration.ofMillis(1_234_567), Duration.ofMillis(77_777)),
              BurnRateAlert.ticket(1, Duration.ofMinutes(50), Duration.ofMinutes(7)))
          .build();

  static Stream<Arguments> streams() {
    return Stream.of(
        Arguments.of("workbook", WORKBOOK, 1L, 45 * DAY, 20 * SECOND, 2e-5),
        Arguments.of("workbook", WORKBOOK, 2L, 45 * DAY, 20 * SECOND, 2e-5),
        Arguments.of("workbook", WORKBOOK, 3L, 45 * DAY, 20 * SECOND, 2e-5),
        Arguments.of("short", SHORT, 4L, 4 * DAY, SECOND, 2e-5),
        Arguments.of("short", SHORT, 5L, 4 * DAY, SECOND, 2e-5),
        Arguments.of("short", SHORT, 6L, 4 * DAY, SECOND, 2e-5));
  }

  @ParameterizedTest(name = "{0} windows, seed {2}")
  @MethodSource("streams")
  void status_equalsTheExactModel_onRandomStreams(
      String label,
      ServiceLevelConfig config,
      long seed,
      long length,
      long meanStep,
      double idleChance) {
    SplittableRandom random = new SplittableRandom(seed);
    long origin = random.nextLong(-(1L << 60), 1L << 60);
    ManualTimeSource time = new ManualTimeSource(origin);
    ServiceLevel slo = ServiceLevel.inProcess(config, time);
    ExactSloModel model = new ExactSloModel(config);
    long period = config.period().toNanos();
    boolean longGapTaken = false;
    double failing = 0;
    double slow = 0.005;
    int checks = 0;
    int firingSeen = 0;
    int events = 0;
    int idleSpells = 0;
    while (time.nanoTime() - origin < length) {
      double u = random.nextDouble();
      if (u < idleChance) {
        // an idle spell: hours to days without an event
        time.advanceNanos(random.nextLong(HOUR / 60, Math.min(3 * DAY, period)));
        idleSpells++;
      } else if (!longGapTaken && time.nanoTime() - origin > length / 2) {
        // once, silence for longer than the period: every window empties
        longGapTaken = true;
        time.advanceNanos(period + random.nextLong(1, period));
        assertMatches(slo.status(), model, time.nanoTime());
        assertThat(slo.status().objectives().get(0).periodCounts()).isEqualTo(EventCounts.NONE);
      } else if (u < 0.001 + idleChance) {
        // a new regime: healthy, degraded, or a full outage
        double[] levels = {0, 0.0003, 0.002, 0.05, 0.3, 1.0};
        failing = levels[random.nextInt(levels.length)];
        slow = levels[random.nextInt(levels.length)];
      } else if (u < 0.2) {
        // several events at one instant
      } else {
        time.advanceNanos((long) (-Math.log(1 - random.nextDouble()) * meanStep));
      }
      long now = time.nanoTime();
      long latency =
          random.nextDouble() < slow
              ? random.nextLong(250_000_000, 3_000_000_000L)
              : random.nextLong(-5, 400_000_000);
      boolean failed = random.nextDouble() < failing;
      if (random.nextBoolean()) {
        slo.recordAt(latency, failed, now);
      } else {
        slo.record(latency, failed);
      }
      model.add(now, latency, failed);
      events++;
      if (random.nextDouble() < 0.004) {
        // sometimes later within the same instant, sometimes after a step
        if (random.nextBoolean()) {
          time.advanceNanos(random.nextLong(0, 10 * meanStep));
        }
        ServiceLevelStatus status = slo.status();
        assertMatches(status, model, time.nanoTime());
        checks++;
        firingSeen += (int) status.objectives().stream().mapToLong(s -> s.firing().size()).sum();
      }
    }
    assertThat(longGapTaken).isTrue();
    assertThat(checks).as("statuses compared").isGreaterThan(200);
    assertThat(firingSeen).as("alert conditions seen holding").isPositive();
    assertThat(events).isGreaterThan(50_000);
    assertThat(idleSpells).isPositive();
  }

  static void assertMatches(ServiceLevelStatus status, ExactSloModel model, long now) {
    assertThat(status.timeNanos()).isEqualTo(now);
    ServiceLevelConfig config = status.config();
    List<Objective> objectives = config.objectives();
    for (int o = 0; o < objectives.size(); o++) {
      ObjectiveStatus s = status.objective(objectives.get(o).name());
      String at = objectives.get(o).name() + " at " + now;
      for (Duration w : config.windows()) {
        assertThat(s.counts(w)).as("%s over %s", at, w).isEqualTo(model.counts(o, w, now));
        assertSame(s.burnRate(w), model.burnRate(o, w, now), "burn rate over " + w + ", " + at);
      }
      assertThat(s.recorded()).as("recorded, %s", at).isEqualTo(model.recorded(o));
      assertSame(s.sli(), model.sli(o, now), "sli, " + at);
      assertSame(s.budgetRemaining(), model.budgetRemaining(o, now), "budget, " + at);
      for (AlertStatus a : s.alerts()) {
        assertThat(a.firing())
            .as("%s firing, %s", a.alert().name(), at)
            .isEqualTo(model.firing(o, a.alert(), now));
      }
    }
  }

  private static void assertSame(double actual, double expected, String what) {
    if (Double.isNaN(expected)) {
      assertThat(actual).as(what).isNaN();
    } else {
      assertThat(actual).as(what).isCloseTo(expected, within(1e-12 * Math.max(1, expected)));
    }
  }
}
