package io.ringtail.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ObjectiveStatusTest {
  static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .availability("available", 0.999)
          .period(Duration.ofDays(28))
          .build();

  /**
   * Two processes' counts merged window by window give the status of one process that saw both
   * streams: the computation a fleet would run on counts merged in its store.
   */
  @Test
  void of_countsMergedFromTwoProcesses_equalsOneProcessOfBothStreams() {
    ManualTimeSource time = new ManualTimeSource(-5_000_000_000_000L);
    ServiceLevel a = ServiceLevel.inProcess(CONFIG, time);
    ServiceLevel b = ServiceLevel.inProcess(CONFIG, time);
    ServiceLevel both = ServiceLevel.inProcess(CONFIG, time);
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 200_000; i++) {
      time.advanceNanos(random.nextLong(0, 30_000_000_000L));
      long latency = random.nextLong(0, 600_000_000);
      boolean failed = random.nextDouble() < 0.002;
      (random.nextBoolean() ? a : b).record(latency, failed);
      both.record(latency, failed);
    }
    ServiceLevelStatus sa = a.status();
    ServiceLevelStatus sb = b.status();
    ServiceLevelStatus expected = both.status();
    for (Objective o : CONFIG.objectives()) {
      Map<Duration, EventCounts> merged = new HashMap<>();
      for (Duration w : CONFIG.windows()) {
        merged.put(w, sa.objective(o.name()).counts(w).plus(sb.objective(o.name()).counts(w)));
      }
      EventCounts recorded =
          sa.objective(o.name()).recorded().plus(sb.objective(o.name()).recorded());
      ObjectiveStatus fleet = ObjectiveStatus.of(CONFIG, o, merged, recorded);
      ObjectiveStatus one = expected.objective(o.name());

      assertThat(fleet.periodCounts()).isEqualTo(one.periodCounts());
      assertThat(fleet.recorded()).isEqualTo(one.recorded());
      assertThat(fleet.sli()).isEqualTo(one.sli());
      assertThat(fleet.budgetRemaining()).isEqualTo(one.budgetRemaining());
      assertThat(fleet.burnRates()).isEqualTo(one.burnRates());
      assertThat(fleet.alerts()).isEqualTo(one.alerts());
      assertThat(one.periodCounts().total()).isGreaterThan(10_000);
    }
  }

  @Test
  void of_withoutEvents_hasAWholeBudget_andNaNRates_andNoAlert() {
    Objective o = CONFIG.objectives().get(1);
    Map<Duration, EventCounts> none = new HashMap<>();
    CONFIG.windows().forEach(w -> none.put(w, EventCounts.NONE));
    ObjectiveStatus s = ObjectiveStatus.of(CONFIG, o, none, EventCounts.NONE);

    assertThat(s.sli()).isNaN();
    assertThat(s.budgetRemaining()).isEqualTo(1.0);
    assertThat(s.burnRates().values()).allMatch(v -> v.isNaN());
    assertThat(s.firing()).isEmpty();
    assertThat(s.alerts()).allMatch(a -> Double.isNaN(a.value()));
  }

  @Test
  void of_budget_isWhatIsLeft_andGoesNegativeWhenOverspent() {
    Objective o = CONFIG.objectives().get(0); // 99 %: a budget of 1 % of events
    Map<Duration, EventCounts> counts = new HashMap<>();
    CONFIG.windows().forEach(w -> counts.put(w, new EventCounts(9_975, 10_000)));
    counts.put(Duration.ofMinutes(5), new EventCounts(80, 100));
    counts.put(Duration.ofHours(1), new EventCounts(840, 1000));
    ObjectiveStatus s = ObjectiveStatus.of(CONFIG, o, counts, new EventCounts(9_975, 10_000));

    assertThat(s.sli()).isEqualTo(0.9975);
    assertThat(s.budgetRemaining()).isCloseTo(0.75, within(1e-12));
    assertThat(s.burnRate(Duration.ofMinutes(5))).isCloseTo(20, within(1e-9));
    assertThat(s.burnRate(Duration.ofHours(1))).isCloseTo(16, within(1e-9));
    assertThat(s.firing()).extracting(a -> a.alert().name()).containsExactly("page-1h");
    assertThat(s.alerts().get(0).value()).isCloseTo(16, within(1e-9));

    CONFIG.windows().forEach(w -> counts.put(w, new EventCounts(9_000, 10_000)));
    assertThat(ObjectiveStatus.of(CONFIG, o, counts, EventCounts.NONE).budgetRemaining())
        .isCloseTo(-9, within(1e-9));
  }

  @Test
  void of_refusesAMissingWindow_orAnotherConfigsObjective() {
    Objective o = CONFIG.objectives().get(0);
    Map<Duration, EventCounts> counts = new HashMap<>();
    CONFIG.windows().forEach(w -> counts.put(w, EventCounts.NONE));
    counts.remove(Duration.ofHours(6));
    assertThatThrownBy(() -> ObjectiveStatus.of(CONFIG, o, counts, EventCounts.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("windows must be counts for every window, PT6H included, but was");

    counts.put(Duration.ofHours(6), EventCounts.NONE);
    Objective stranger = Objective.availability("stranger", 0.99);
    assertThatThrownBy(() -> ObjectiveStatus.of(CONFIG, stranger, counts, EventCounts.NONE))
        .hasMessageStartingWith("objective must be one of service level checkout, but was");
    ObjectiveStatus s = ObjectiveStatus.of(CONFIG, o, counts, EventCounts.NONE);
    assertThatThrownBy(() -> s.burnRate(Duration.ofMinutes(7)))
        .hasMessage("window must be one of the service level's windows, but was PT7M");
  }

  @Test
  void status_findsObjectivesByName() {
    ServiceLevelStatus s = ServiceLevel.inProcess(CONFIG, new ManualTimeSource()).status();
    assertThat(s.objective("available").objective().kind()).isEqualTo(Objective.Kind.AVAILABILITY);
    assertThatThrownBy(() -> s.objective("nope"))
        .hasMessage("name must be the name of an objective of checkout, but was \"nope\"");
  }
}
