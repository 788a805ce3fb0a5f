package io.ringtail.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertEvent.Type;
import io.ringtail.alert.AlertMonitor.State;
import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The baseline options of {@link AlertRule}: fire only above the baseline, resolve when back part
 * of the way; checked against a naive model on random streams, and at their edges.
 */
class BaselineRuleTest {
  private static final Duration STEP = Duration.ofSeconds(10);

  private final ManualTimeSource time = new ManualTimeSource(7_000_000_000_000L);
  private final AlertMonitor monitor = AlertMonitor.create(time);

  private RollingWindow window() {
    return RollingWindow.create(
        WindowConfig.builder().length(STEP).buckets(10).stripes(1).build(), time);
  }

  /** Lets the window empty, records {@code v} (none if negative: no data), evaluates. */
  private List<AlertEvent> step(RollingWindow w, long v) {
    time.advance(STEP);
    if (v >= 0) {
      w.record(v);
    }
    return monitor.evaluate();
  }

  /**
   * The rules' behaviour written out plainly: the baseline folded again from every value it took
   * in, the way back measured as the fraction of the distance travelled.
   */
  static final class Model {
    final double threshold;
    final boolean onlyAbove;
    final double back; // NaN: resolve when the value no longer breaches
    final double weight;
    final long fireAfter;
    final long cooldown;
    final AnomalyDetector detector; // null: the value is the measure
    final List<Double> learnt = new ArrayList<>();
    State state = State.OK;
    double fired = Double.NaN;
    long pendingSince;
    Long resolvedAt;

    Model(
        double threshold,
        boolean onlyAbove,
        double back,
        double weight,
        long fireAfter,
        long cooldown,
        AnomalyDetector detector) {
      this.threshold = threshold;
      this.onlyAbove = onlyAbove;
      this.back = back;
      this.weight = weight;
      this.fireAfter = fireAfter;
      this.cooldown = cooldown;
      this.detector = detector;
    }

    double baseline() {
      double b = Double.NaN;
      for (double v : learnt) {
        b = Double.isNaN(b) ? v : b + weight * (v - b);
      }
      return b;
    }

    /** The event type at this step, or null. */
    Type step(long now, double m) {
      double value = detector == null || Double.isNaN(m) ? m : detector.score(m);
      double b = baseline();
      boolean hasBaseline = !learnt.isEmpty();
      boolean breach =
          !Double.isNaN(value) && value >= threshold && hasBaseline && (!onlyAbove || m > b);
      Type event = null;
      State before = state;
      if (state == State.FIRING) {
        boolean clears;
        if (Double.isNaN(m)) {
          clears = Double.isNaN(back); // no data is not back
        } else if (Double.isNaN(back)) {
          clears = !(value >= threshold);
        } else {
          clears = fired == b || (fired - m) / (fired - b) >= back;
        }
        if (clears) {
          state = State.OK;
          resolvedAt = now;
          event = Type.RESOLVED;
        }
      } else if (!breach) {
        state = State.OK;
      } else if (state == State.OK && resolvedAt != null && now - resolvedAt < cooldown) {
        // cooling down
      } else if (state == State.OK && fireAfter > 0) {
        state = State.PENDING;
        pendingSince = now;
      } else if (state == State.OK || now - pendingSince >= fireAfter) {
        state = State.FIRING;
        fired = m;
        event = Type.FIRED;
      }
      if (before != State.FIRING && state != State.FIRING && !Double.isNaN(m)) {
        learnt.add(m);
      }
      return event;
    }
  }

  /** Equal bits: a NaN equals a NaN. */
  private static long bits(double v) {
    return Double.doubleToLongBits(v);
  }

  @Test
  void randomStreams_matchTheNaiveModel_eventForEvent() {
    int fires = 0;
    for (int seed = 0; seed < 60; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      boolean anomaly = seed % 3 == 2;
      boolean onlyAbove = random.nextBoolean();
      double back = random.nextInt(4) == 0 ? Double.NaN : 0.1 + 0.9 * random.nextDouble();
      if (!onlyAbove && Double.isNaN(back)) {
        back = 0.5;
      }
      double weight = random.nextBoolean() ? 0.1 : 0.01 + 0.99 * random.nextDouble();
      long fireAfter =
          random.nextInt(3) == 0 ? STEP.multipliedBy(random.nextInt(1, 4)).toNanos() : 0;
      long cooldown =
          random.nextInt(3) == 0 ? STEP.multipliedBy(random.nextInt(1, 6)).toNanos() : 0;
      double threshold = anomaly ? 0.5 : 100 + random.nextInt(200);

      RollingWindow w = window();
      AnomalyDetectorConfig detector = AnomalyDetectorConfig.builder().warmUp(20).build();
      AlertRule.Builder b =
          anomaly
              ? AlertRule.anomaly("r" + seed, w, Measure.max(), detector)
              : AlertRule.threshold("r" + seed, w, Measure.max());
      b.atLeast(threshold)
          .fireAfter(Duration.ofNanos(fireAfter))
          .cooldown(Duration.ofNanos(cooldown))
          .baselineWeight(weight);
      if (onlyAbove) {
        b.onlyAboveBaseline();
      }
      if (!Double.isNaN(back)) {
        b.resolveWhenBack(back);
      }
      AlertRule rule = b.build();
      monitor.add(rule);
      Model model =
          new Model(
              threshold,
              onlyAbove,
              back,
              weight,
              fireAfter,
              cooldown,
              anomaly ? detector.newDetector() : null);

      long level = 150;
      for (int i = 0; i < 600; i++) {
        if (random.nextInt(40) == 0) {
          level = 20 + random.nextInt(400); // a level shift, up or down
        }
        long v = random.nextInt(25) == 0 ? -1 : level + random.nextInt(-30, 31);
        List<AlertEvent> events = step(w, v);
        Type expected = model.step(time.nanoTime(), v < 0 ? Double.NaN : v);
        String at = "seed " + seed + " step " + i + " value " + v;
        assertThat(events.stream().map(AlertEvent::type).toList())
            .as(at)
            .isEqualTo(expected == null ? List.of() : List.of(expected));
        RuleSnapshot s = monitor.snapshot(rule.name());
        assertThat(s.state()).as(at).isEqualTo(model.state);
        assertThat(bits(s.baseline())).as(at).isEqualTo(bits(model.baseline()));
        assertThat(bits(s.measured())).as(at).isEqualTo(bits(v < 0 ? Double.NaN : v));
        if (model.state == State.FIRING) {
          assertThat(s.firedValue()).as(at).isEqualTo(model.fired);
        }
        fires += expected == Type.FIRED ? 1 : 0;
      }
      monitor.remove(rule.name());
    }
    assertThat(fires).as("the streams fire often enough to test something").isGreaterThan(100);
  }

  private AlertRule halfWay(RollingWindow w) {
    return AlertRule.threshold("p", w, Measure.max())
        .above(100)
        .onlyAboveBaseline()
        .resolveWhenBack()
        .build();
  }

  @Test
  void theFirstValue_startsTheBaseline_andCannotFire() {
    RollingWindow w = window();
    monitor.add(halfWay(w));
    assertThat(monitor.snapshot("p").baseline()).isNaN();
    assertThat(step(w, 500)).isEmpty();
    assertThat(monitor.snapshot("p").baseline()).isEqualTo(500.0);
    assertThat(step(w, 600)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
    assertThat(monitor.snapshot("p").firedValue()).isEqualTo(600.0);
    assertThat(monitor.snapshot("p").baseline()).as("not learnt from the fire").isEqualTo(500.0);
  }

  @Test
  void onlyAboveBaseline_aBreachBelowTheBaselineDoesNotFire() {
    RollingWindow w = window();
    monitor.add(halfWay(w));
    step(w, 400);
    assertThat(step(w, 300)).as("above the threshold, below the baseline").isEmpty();
    assertThat(monitor.snapshot("p").baseline()).isEqualTo(390.0); // 400 + 0.1 * (300 - 400)
    assertThat(step(w, 391)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void resolveWhenBack_holdsUntilHalfWay_evenBelowTheThreshold() {
    RollingWindow w = window();
    monitor.add(
        AlertRule.threshold("p", w, Measure.max())
            .above(150)
            .onlyAboveBaseline()
            .resolveWhenBack()
            .build());
    step(w, 100);
    assertThat(step(w, 300)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
    // half-way from 300 to 100 is 200: 201 holds, though far below the threshold would not
    assertThat(step(w, 201)).isEmpty();
    assertThat(monitor.state("p")).isEqualTo(State.FIRING);
    assertThat(step(w, 200)).extracting(AlertEvent::type).containsExactly(Type.RESOLVED);
    assertThat(monitor.snapshot("p").baseline())
        .as("the resolving value is not learnt")
        .isEqualTo(100.0);
  }

  @Test
  void resolveWhenBack_aFireBelowTheBaseline_resolvesOnTheWayUp() {
    RollingWindow w = window();
    monitor.add(
        AlertRule.threshold("drop", w, Measure.max()).atLeast(0).resolveWhenBack(0.75).build());
    step(w, 1000);
    assertThat(step(w, 200)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
    // three quarters of the way from 200 back to 1000 is 800
    assertThat(step(w, 799)).isEmpty();
    assertThat(step(w, 5000)).as("beyond the baseline is back").hasSize(1);
  }

  @Test
  void noData_neitherFiresNorTeachesTheBaseline_norResolvesAFireThatWaitsToBeBack() {
    RollingWindow w = window();
    monitor.add(halfWay(w));
    assertThat(step(w, -1)).isEmpty();
    assertThat(monitor.snapshot("p").baseline()).isNaN();
    step(w, 200);
    assertThat(step(w, -1)).isEmpty();
    assertThat(monitor.snapshot("p").baseline()).isEqualTo(200.0);
    assertThat(monitor.snapshot("p").measured()).isNaN();
    step(w, 900);
    assertThat(monitor.state("p")).isEqualTo(State.FIRING);
    assertThat(step(w, -1)).as("no data is not back").isEmpty();
    assertThat(monitor.state("p")).isEqualTo(State.FIRING);
    assertThat(step(w, 550)).extracting(AlertEvent::type).containsExactly(Type.RESOLVED);
    // without resolveWhenBack, no data resolves as for any rule
    monitor.remove("p");
    monitor.add(AlertRule.threshold("q", w, Measure.max()).above(100).onlyAboveBaseline().build());
    step(w, 200);
    assertThat(step(w, 900)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
    assertThat(step(w, -1)).extracting(AlertEvent::type).containsExactly(Type.RESOLVED);
  }

  @Test
  void cooldown_holdsTheFire_whileTheBaselineLearns() {
    RollingWindow w = window();
    monitor.add(
        AlertRule.threshold("p", w, Measure.max())
            .above(100)
            .onlyAboveBaseline()
            .resolveWhenBack()
            .baselineWeight(0.5)
            .cooldown(STEP.multipliedBy(3))
            .build());
    step(w, 200);
    step(w, 400); // fires
    step(w, 200); // resolves
    assertThat(step(w, 800)).as("cooling down").isEmpty();
    assertThat(monitor.snapshot("p").baseline()).isEqualTo(500.0); // 200 + 0.5 * (800 - 200)
    assertThat(step(w, 900)).as("cooling down").isEmpty();
    assertThat(monitor.snapshot("p").baseline()).isEqualTo(700.0);
    assertThat(step(w, 701)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void fireAfter_breachesMustHoldAboveTheBaseline_andTheBaselineLearnsMeanwhile() {
    RollingWindow w = window();
    monitor.add(
        AlertRule.threshold("p", w, Measure.max())
            .above(100)
            .onlyAboveBaseline()
            .fireAfter(STEP)
            .build());
    step(w, 200);
    assertThat(step(w, 300)).isEmpty();
    assertThat(monitor.state("p")).isEqualTo(State.PENDING);
    assertThat(monitor.snapshot("p").baseline()).isEqualTo(210.0);
    assertThat(step(w, 205)).as("below the baseline: no longer breaching").isEmpty();
    assertThat(monitor.state("p")).isEqualTo(State.OK);
    step(w, 300);
    assertThat(step(w, 300)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void anomalyRule_aDropIsNoAlarm_andARiseStaysFiredUntilHalfWayBack() {
    RollingWindow w = window();
    AnomalyDetectorConfig detector = AnomalyDetectorConfig.builder().warmUp(50).build();
    monitor.add(
        AlertRule.anomaly("latency", w, Measure.max(), detector)
            .atLeast(0.5)
            .onlyAboveBaseline()
            .resolveWhenBack()
            .build());
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 300; i++) {
      assertThat(step(w, 100 + random.nextInt(-5, 6))).isEmpty();
    }
    for (int i = 0; i < 20; i++) {
      assertThat(step(w, 20 + random.nextInt(-5, 6))).as("faster is no alarm").isEmpty();
    }
    for (int i = 0; i < 300; i++) {
      step(w, 100 + random.nextInt(-5, 6));
    }
    assertThat(monitor.state("latency")).isEqualTo(State.OK);
    assertThat(step(w, 400)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
    // the detector calms down as 400 lasts; the alert holds until the latency comes back
    for (int i = 0; i < 100; i++) {
      assertThat(step(w, 400)).isEmpty();
    }
    assertThat(monitor.state("latency")).isEqualTo(State.FIRING);
    assertThat(step(w, 100)).extracting(AlertEvent::type).containsExactly(Type.RESOLVED);
  }

  @Test
  void aSnapshotHandedToAnotherMonitor_continuesTheFire_andResolvesItOnce() {
    RollingWindow w = window();
    monitor.add(halfWay(w));
    step(w, 200);
    step(w, 200);
    step(w, 600);
    RuleSnapshot handed = monitor.snapshot("p");
    assertThat(handed).isEqualTo(new RuleSnapshot("p", State.FIRING, 600.0, 600.0, 200.0, 600.0));

    AlertMonitor next = AlertMonitor.create(time).add(halfWay(w), handed);
    List<AlertEvent> heard = new ArrayList<>();
    next.addListener(heard::add);
    assertThat(next.snapshot("p")).isEqualTo(handed);
    time.advance(STEP);
    w.record(450);
    assertThat(next.evaluate()).as("not fired again").isEmpty();
    time.advance(STEP);
    w.record(400);
    assertThat(next.evaluate()).extracting(AlertEvent::type).containsExactly(Type.RESOLVED);
    assertThat(heard).hasSize(1);
    assertThat(next.snapshot("p").baseline()).isEqualTo(200.0);
  }

  @Test
  void aPendingSnapshot_restartsItsPendingPeriod() {
    RollingWindow w = window();
    AlertRule held =
        AlertRule.threshold("p", w, Measure.max())
            .above(100)
            .fireAfter(STEP.multipliedBy(2))
            .build();
    monitor.add(held, new RuleSnapshot("p", State.PENDING, 500, 500, Double.NaN, Double.NaN));
    assertThat(step(w, 500)).isEmpty();
    assertThat(monitor.state("p")).isEqualTo(State.PENDING);
    assertThat(step(w, 500)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void snapshotsThatCannotGoOn_areRefused() {
    RollingWindow w = window();
    assertThatThrownBy(
            () ->
                monitor.add(
                    halfWay(w), new RuleSnapshot("q", State.OK, 1, 1, Double.NaN, Double.NaN)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("from must be a snapshot of rule p");
    assertThatThrownBy(
            () ->
                monitor.add(halfWay(w), new RuleSnapshot("p", State.FIRING, 1, 1, Double.NaN, 700)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("finite baseline and fired value");
    assertThatThrownBy(() -> new RuleSnapshot(" ", State.OK, 1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    monitor.add(halfWay(w));
    assertThatThrownBy(() -> monitor.add(halfWay(w), monitor.snapshot("p")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unique");
  }

  @Test
  void optionsOutOfRange_failNamingThem() {
    RollingWindow w = window();
    for (double bad : new double[] {0.0, -0.1, 1.01, Double.NaN}) {
      assertThatThrownBy(
              () ->
                  AlertRule.threshold("x", w, Measure.max())
                      .above(1)
                      .onlyAboveBaseline()
                      .baselineWeight(bad)
                      .build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("baselineWeight must be above 0 and at most 1");
      assertThatThrownBy(
              () ->
                  AlertRule.threshold("x", w, Measure.max()).above(1).resolveWhenBack(bad).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("resolveWhenBack must be above 0 and at most 1");
    }
    assertThatThrownBy(
            () ->
                AlertRule.threshold("x", w, Measure.max())
                    .above(10)
                    .resolveBelow(5)
                    .resolveWhenBack()
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("resolveWhenBack must be not combined with resolveBelow");
    assertThatThrownBy(
            () -> AlertRule.threshold("x", w, Measure.max()).above(1).baselineWeight(0.2).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("onlyAboveBaseline() or resolveWhenBack()");
    assertThat(
            AlertRule.threshold("x", w, Measure.max())
                .above(1)
                .onlyAboveBaseline()
                .resolveWhenBack()
                .build()
                .toString())
        .contains("onlyAboveBaseline, resolveWhenBack=0.5, baselineWeight=0.1");
  }
}
