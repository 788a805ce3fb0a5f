package io.ringtail.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertEvent.Type;
import io.ringtail.alert.AlertMonitor.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AlertRuleTest {
  private final ManualTimeSource time = new ManualTimeSource(7_000_000_000_000L);
  private final AlertMonitor monitor = AlertMonitor.create(time);
  private final List<AlertEvent> heard = new ArrayList<>();

  AlertRuleTest() {
    monitor.addListener(heard::add);
  }

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  private RollingWindow window(Duration length, int buckets) {
    return RollingWindow.create(
        WindowConfig.builder().length(length).buckets(buckets).stripes(1).build(), time);
  }

  private static void fill(RollingWindow window, int n, long valueNanos) {
    for (int i = 0; i < n; i++) {
      window.record(valueNanos);
    }
  }

  /** Lets a 10 s window empty, then fills it with 100 samples of {@code valueMs}. */
  private void step(RollingWindow window, long valueMs) {
    time.advance(Duration.ofSeconds(10));
    fill(window, 100, ms(valueMs));
  }

  @Test
  void threshold_p95_firesHoldsAndResolvesWithTheSnapshotThatCausedIt() {
    RollingWindow window = window(Duration.ofSeconds(60), 60);
    monitor.add(
        AlertRule.threshold("checkout-p95", window, Measure.percentile(95)).above(ms(250)).build());

    fill(window, 100, ms(100));
    assertThat(monitor.evaluate()).isEmpty();

    time.advance(Duration.ofSeconds(10));
    fill(window, 20, ms(400));
    List<AlertEvent> fired = monitor.evaluate();
    assertThat(fired)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.FIRED);
              assertThat(e.rule().name()).isEqualTo("checkout-p95");
              assertThat(e.snapshot().count()).isEqualTo(120);
              assertThat(e.snapshot().valueAtPercentile(95))
                  .isCloseTo(ms(400), within((double) ms(4)));
              assertThat(e.value()).isEqualTo(e.snapshot().valueAtPercentile(95));
              assertThat(e.baselineSnapshot()).isEmpty();
              assertThat(e.timeNanos()).isEqualTo(time.nanoTime());
            });
    assertThat(heard).isEqualTo(fired);

    for (int i = 0; i < 4; i++) {
      time.advance(Duration.ofSeconds(5));
      fill(window, 5, ms(400));
      assertThat(monitor.evaluate()).isEmpty();
      assertThat(monitor.state("checkout-p95")).isEqualTo(State.FIRING);
    }

    time.advance(Duration.ofSeconds(61));
    fill(window, 100, ms(120));
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.RESOLVED);
              assertThat(e.snapshot().count()).isEqualTo(100);
              assertThat(e.snapshot().valueAtPercentile(95)).isLessThanOrEqualTo(ms(250));
            });
    assertThat(monitor.state("checkout-p95")).isEqualTo(State.OK);
    assertThat(heard).hasSize(2);
  }

  @Test
  void threshold_countAtLeastN_tenthEventFiresNinthDoesNot() {
    RollingWindow window = window(Duration.ofSeconds(60), 60);
    monitor.add(AlertRule.threshold("failed-logons", window, Measure.count()).atLeast(10).build());

    for (int i = 1; i <= 9; i++) {
      window.record(1);
      time.advance(Duration.ofSeconds(1));
      assertThat(monitor.evaluate()).as("event %d", i).isEmpty();
    }
    window.record(1);
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(Type.FIRED))
        .satisfies(e -> assertThat(e.value()).isEqualTo(10.0));

    time.advance(Duration.ofSeconds(30));
    assertThat(monitor.evaluate()).isEmpty();
    time.advance(Duration.ofSeconds(30));
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(Type.RESOLVED))
        .satisfies(e -> assertThat(e.value()).isZero());
  }

  @Test
  void fireAfter_firesOnlyAfterBreachingThroughoutThePeriod() {
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    monitor.add(
        AlertRule.threshold("slow", window, Measure.percentile(95))
            .above(ms(250))
            .fireAfter(Duration.ofSeconds(30))
            .build());

    step(window, 400);
    assertThat(monitor.evaluate()).isEmpty();
    assertThat(monitor.state("slow")).isEqualTo(State.PENDING);
    step(window, 400);
    step(window, 100);
    assertThat(monitor.evaluate()).isEmpty();
    assertThat(monitor.state("slow")).isEqualTo(State.OK);

    step(window, 400);
    assertThat(monitor.evaluate()).isEmpty();
    for (int i = 0; i < 2; i++) {
      step(window, 400);
      assertThat(monitor.evaluate()).isEmpty();
    }
    step(window, 400);
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(Type.FIRED));
  }

  @Test
  void hysteresis_valueInsideTheBandHoldsTheState() {
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    monitor.add(
        AlertRule.threshold("slow", window, Measure.percentile(95))
            .above(ms(250))
            .resolveBelow(ms(200))
            .build());

    for (int i = 0; i < 50; i++) {
      step(window, i % 2 == 0 ? 260 : 220);
      monitor.evaluate();
    }
    assertThat(heard).extracting(AlertEvent::type).containsExactly(Type.FIRED);
    step(window, 150);
    monitor.evaluate();
    assertThat(heard).extracting(AlertEvent::type).containsExactly(Type.FIRED, Type.RESOLVED);
  }

  @Test
  void flappingInput_withoutDampingStorms_withCooldownAndHysteresisDoesNot() {
    RollingWindow raw = window(Duration.ofSeconds(10), 10);
    AlertMonitor undamped =
        AlertMonitor.create(time)
            .add(AlertRule.threshold("raw", raw, Measure.percentile(95)).above(ms(250)).build());
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    monitor.add(
        AlertRule.threshold("damped", window, Measure.percentile(95))
            .above(ms(250))
            .resolveBelow(ms(200))
            .cooldown(Duration.ofMinutes(5))
            .build());

    int undampedEvents = 0;
    int steps = 360;
    for (int i = 0; i < steps; i++) {
      long value = i % 2 == 0 ? 300 : 100;
      step(window, value);
      fill(raw, 100, ms(value));
      undampedEvents += undamped.evaluate().size();
      monitor.evaluate();
    }
    assertThat(undampedEvents).isEqualTo(steps);

    // one hour of flapping every 10 s: a fire/resolve pair at most once per 5 min cooldown
    // fire, resolve 10 s later, 5 min cooldown, fire at the next breach: a 320 s cycle, 12 pairs
    assertThat(heard).hasSize(24);
    for (int i = 0; i < heard.size(); i++) {
      assertThat(heard.get(i).type()).isEqualTo(i % 2 == 0 ? Type.FIRED : Type.RESOLVED);
      if (i % 2 == 0 && i > 0) {
        assertThat(heard.get(i).timeNanos() - heard.get(i - 1).timeNanos())
            .isGreaterThanOrEqualTo(Duration.ofMinutes(5).toNanos());
      }
    }
  }

  @Test
  void flappingInput_sloBurnAndRatioRulesStayWithinOnePairPerCooldown() {
    RollingWindow shortWindow = window(Duration.ofSeconds(10), 10);
    RollingWindow baseline = window(Duration.ofMinutes(30), 30);
    monitor.add(
        AlertRule.sloBurn("burn", shortWindow, ms(300), 0.99)
            .above(5)
            .resolveBelow(2)
            .cooldown(Duration.ofMinutes(5))
            .build());
    monitor.add(
        AlertRule.ratio("ratio", shortWindow, baseline, Measure.percentile(99))
            .above(2)
            .resolveBelow(1.5)
            .cooldown(Duration.ofMinutes(5))
            .build());
    for (int i = 0; i < 180; i++) {
      fill(baseline, 100, ms(100));
    }
    int steps = 360;
    for (int i = 0; i < steps; i++) {
      time.advance(Duration.ofSeconds(10));
      boolean bad = i % 2 == 0;
      fill(shortWindow, 90, ms(100));
      fill(shortWindow, 10, ms(bad ? 900 : 100));
      fill(baseline, 100, ms(100));
      monitor.evaluate();
    }
    for (String rule : List.of("burn", "ratio")) {
      List<AlertEvent> events = heard.stream().filter(e -> e.rule().name().equals(rule)).toList();
      assertThat(events).as(rule).hasSizeBetween(2, 2 * (steps * 10 / 300 + 1));
      for (int i = 0; i < events.size(); i++) {
        assertThat(events.get(i).type()).isEqualTo(i % 2 == 0 ? Type.FIRED : Type.RESOLVED);
        if (i % 2 == 0 && i > 0) {
          assertThat(events.get(i).timeNanos() - events.get(i - 1).timeNanos())
              .isGreaterThanOrEqualTo(Duration.ofMinutes(5).toNanos());
        }
      }
    }
  }

  @Test
  void sloBurn_firesOnBudgetBurnAndResolves() {
    RollingWindow window = window(Duration.ofSeconds(60), 60);
    monitor.add(
        AlertRule.sloBurn("checkout-slo", window, ms(300), 0.99)
            .above(2)
            .minimumSamples(100)
            .build());

    window.record(ms(900));
    assertThat(monitor.evaluate()).as("one slow request in a quiet window").isEmpty();

    time.advance(Duration.ofSeconds(1));
    fill(window, 939, ms(120));
    fill(window, 60, ms(450));
    // 61 of 1000 above 300 ms: 6.1 % against a 1 % budget
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.FIRED);
              assertThat(e.value()).isCloseTo(6.1, within(1e-9));
            });

    time.advance(Duration.ofSeconds(30));
    fill(window, 1000, ms(120));
    assertThat(monitor.evaluate()).as("3.05 x still burning").isEmpty();
    time.advance(Duration.ofSeconds(30));
    fill(window, 1000, ms(120));
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.RESOLVED);
              assertThat(e.value()).isEqualTo(0.0);
            });
  }

  @Test
  void ratio_shortP95AboveTwiceBaselineP95_carriesBothSnapshots() {
    RollingWindow lastMinute = window(Duration.ofMinutes(1), 60);
    RollingWindow lastHalfHour = window(Duration.ofMinutes(30), 30);
    monitor.add(
        AlertRule.ratio("p95-vs-baseline", lastMinute, lastHalfHour, Measure.percentile(95))
            .above(2)
            .resolveBelow(1.5)
            .build());

    for (int s = 0; s < 1800; s += 10) {
      time.advance(Duration.ofSeconds(10));
      fill(lastMinute, 10, ms(100));
      fill(lastHalfHour, 10, ms(100));
      assertThat(monitor.evaluate()).isEmpty();
    }
    List<AlertEvent> events = new ArrayList<>();
    for (int s = 0; s < 60; s += 10) {
      time.advance(Duration.ofSeconds(10));
      fill(lastMinute, 10, ms(300));
      fill(lastHalfHour, 10, ms(300));
      events.addAll(monitor.evaluate());
    }
    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.FIRED);
              assertThat(e.baselineSnapshot()).isPresent();
              double shortP95 = e.snapshot().valueAtPercentile(95);
              double baseP95 = e.baselineSnapshot().get().valueAtPercentile(95);
              assertThat(shortP95).isCloseTo(ms(300), within((double) ms(3)));
              assertThat(baseP95).isCloseTo(ms(100), within((double) ms(1)));
              assertThat(e.value()).isCloseTo(shortP95 / baseP95, within(1e-12));
            });

    events.clear();
    for (int s = 0; s < 60; s += 10) {
      time.advance(Duration.ofSeconds(10));
      fill(lastMinute, 10, ms(100));
      fill(lastHalfHour, 10, ms(100));
      events.addAll(monitor.evaluate());
    }
    assertThat(events)
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(Type.RESOLVED));
  }

  @Test
  void deviation_meanBeyondKStandardDeviationsOfItsHistory() {
    RollingWindow lastMinute = window(Duration.ofMinutes(1), 6);
    monitor.add(
        AlertRule.deviation("mean-anomaly", lastMinute, Measure.mean(), Duration.ofMinutes(30))
            .above(4)
            .resolveBelow(2)
            .build());

    // steady: per-10s batches whose means wobble between 90 and 110 ms
    long[] wobble = {90, 110, 100, 105, 95};
    for (int i = 0; i < 180; i++) {
      time.advance(Duration.ofSeconds(10));
      fill(lastMinute, 10, ms(wobble[i % wobble.length]));
      assertThat(monitor.evaluate()).as("steady step %d", i).isEmpty();
    }
    time.advance(Duration.ofSeconds(10));
    fill(lastMinute, 10, ms(400));
    List<AlertEvent> fired = monitor.evaluate();
    assertThat(fired)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.FIRED);
              assertThat(e.snapshot().mean()).isGreaterThan(ms(140));
              assertThat(e.value()).isGreaterThan(4);
            });

    List<AlertEvent> events = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      time.advance(Duration.ofSeconds(10));
      fill(lastMinute, 10, ms(wobble[i % wobble.length]));
      events.addAll(monitor.evaluate());
    }
    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.RESOLVED);
              assertThat(e.value()).isLessThan(2);
            });
  }

  @Test
  void deviation_needsMinimumBaselinePointsAndForgetsOldOnes() {
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    monitor.add(
        AlertRule.deviation("dev", window, Measure.max(), Duration.ofSeconds(100))
            .above(3)
            .minimumBaselinePoints(5)
            .build());

    for (int i = 0; i < 4; i++) {
      step(window, 100 + i % 2);
      monitor.evaluate();
    }
    step(window, 1000);
    assertThat(monitor.evaluate()).as("only 4 earlier points").isEmpty();

    // after the baseline period the 1000 ms point is forgotten; a constant history has no spread
    for (int i = 0; i < 11; i++) {
      step(window, 100);
      assertThat(monitor.evaluate()).isEmpty();
    }
    step(window, 101);
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(e -> assertThat(e.value()).isInfinite());
  }

  @Test
  void emptyWindow_isNoDataAndResolves() {
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    monitor.add(AlertRule.threshold("slow", window, Measure.percentile(99)).above(ms(250)).build());
    assertThat(monitor.evaluate()).isEmpty();
    step(window, 300);
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(Type.FIRED));
    time.advance(Duration.ofSeconds(11));
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.RESOLVED);
              assertThat(e.value()).isNaN();
              assertThat(e.snapshot().isEmpty()).isTrue();
            });
  }

  @Test
  void durationsBeyondLongNanos_areRejectedNamingTheParameter() {
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
    assertThatThrownBy(
            () -> AlertRule.threshold("r", window, Measure.mean()).above(1).fireAfter(huge).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("fireAfter must be within")
        .hasMessageEndingWith("but was " + huge);
    assertThatThrownBy(
            () -> AlertRule.threshold("r", window, Measure.mean()).above(1).cooldown(huge).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cooldown must be within");
    assertThatThrownBy(
            () -> AlertRule.deviation("r", window, Measure.mean(), huge).above(3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("baselinePeriod must be within");
    assertThatThrownBy(
            () ->
                AlertRule.threshold("r", window, Measure.mean())
                    .above(1)
                    .fireAfter(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("fireAfter must be within");
    AlertRule longest =
        AlertRule.threshold("r", window, Measure.mean())
            .above(1)
            .fireAfter(Duration.ofNanos(Long.MAX_VALUE))
            .cooldown(Duration.ofNanos(Long.MAX_VALUE))
            .build();
    assertThat(longest.fireAfterNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void builder_rejectsBadRules() {
    RollingWindow window = window(Duration.ofSeconds(10), 10);
    assertThatThrownBy(() -> AlertRule.threshold("r", window, Measure.mean()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a threshold must be set");
    assertThatThrownBy(
            () ->
                AlertRule.threshold("r", window, Measure.mean()).above(10).resolveBelow(20).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("resolveBelow must be at most the threshold 10.0, but was 20.0");
    assertThatThrownBy(
            () -> AlertRule.threshold("r", window, Measure.mean()).above(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threshold must be a finite number, but was NaN");
    assertThatThrownBy(
            () ->
                AlertRule.threshold("r", window, Measure.mean())
                    .above(1)
                    .cooldown(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cooldown must be zero or positive, but was PT-1S");
    assertThatThrownBy(
            () ->
                AlertRule.threshold("r", window, Measure.mean())
                    .above(1)
                    .minimumSamples(-1)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minimumSamples must be zero or positive, but was -1");
    assertThatThrownBy(() -> AlertRule.sloBurn("r", window, 5, 1.0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("objective must be between 0 and 1 exclusive, but was 1.0");
    assertThatThrownBy(
            () -> AlertRule.deviation("r", window, Measure.mean(), Duration.ZERO).above(3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("baselinePeriod must be positive, but was PT0S");
    assertThatThrownBy(() -> Measure.percentile(101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentile must be between 0 and 100, but was 101.0");
    assertThatThrownBy(() -> Measure.fractionAbove(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("target must be zero or positive, but was -1");
    assertThatThrownBy(() -> AlertRule.threshold(" ", window, Measure.mean()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be non-blank, but was \" \"");
  }
}
