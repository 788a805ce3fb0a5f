package io.ringtail.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertEvent.Type;
import io.ringtail.alert.AlertMonitor.State;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

class AnomalyRuleTest {
  private static final Duration STEP = Duration.ofSeconds(10);
  private static final int LEARN = 400;

  private final ManualTimeSource time = new ManualTimeSource(5_000_000_000_000L);
  private final AlertMonitor monitor = AlertMonitor.create(time);
  private final List<AlertEvent> heard = new ArrayList<>();
  private final SplittableRandom random = new SplittableRandom(11);

  AnomalyRuleTest() {
    monitor.addListener(heard::add);
  }

  private RollingWindow window() {
    return RollingWindow.create(
        WindowConfig.builder().length(STEP).buckets(10).stripes(1).build(), time);
  }

  /** 20 latencies around {@code meanMs} (uniform, +-10 ms), in nanoseconds. */
  private void fill(LongConsumer record, double meanMs) {
    for (int i = 0; i < 20; i++) {
      record.accept((long) ((meanMs + random.nextDouble(-10, 10)) * 1e6));
    }
  }

  /** Lets the window empty, fills it around {@code meanMs}, evaluates. */
  private List<AlertEvent> step(LongConsumer record, double meanMs) {
    time.advance(STEP);
    fill(record, meanMs);
    return monitor.evaluate();
  }

  private static AlertRule.Builder meanAnomaly(String name, RollingWindow w) {
    return AlertRule.anomaly(name, w, Measure.mean(), AnomalyDetectorConfig.defaults());
  }

  @Test
  void anomaly_plantedLevelShift_firesOnceThenResolves() {
    RollingWindow w = window();
    monitor.add(meanAnomaly("latency-anomaly", w).above(0.5).cooldown(Duration.ofHours(1)).build());
    for (int i = 0; i < LEARN; i++) {
      assertThat(step(w::record, 100)).isEmpty();
      assertThat(monitor.lastValue("latency-anomaly")).isBetween(0.0, 0.5);
    }

    List<AlertEvent> fired = step(w::record, 160);
    assertThat(fired)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(Type.FIRED);
              assertThat(e.value()).isBetween(0.5, 1.0);
              assertThat(e.value()).isEqualTo(monitor.lastValue("latency-anomaly"));
              assertThat(e.snapshot().mean()).isBetween(150e6, 170e6);
            });
    assertThat(monitor.state("latency-anomaly")).isEqualTo(State.FIRING);

    // the detector goes quiet after its alarm, so the rule resolves; the cooldown holds it
    List<AlertEvent> later = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      later.addAll(step(w::record, 160));
    }
    assertThat(later).extracting(AlertEvent::type).containsExactly(Type.RESOLVED);
    assertThat(heard).hasSize(2);
  }

  @Test
  void anomaly_plantedSlowDrift_firesBeforeAFixedThresholdWould() {
    RollingWindow w = window();
    monitor.add(meanAnomaly("drift", w).above(0.5).build());
    double learnedMax = 0;
    for (int i = 0; i < LEARN; i++) {
      assertThat(step(w::record, 100)).isEmpty();
      learnedMax = Math.max(learnedMax, w.snapshot().mean());
    }
    // +0.05 ms per evaluation: each window's mean is within the noise of the one before
    int firedAt = -1;
    double meanAtFire = Double.NaN;
    for (int i = 1; i <= 1_000 && firedAt < 0; i++) {
      List<AlertEvent> events = step(w::record, 100 + 0.05 * i);
      if (!events.isEmpty()) {
        assertThat(events.get(0).type()).isEqualTo(Type.FIRED);
        firedAt = i;
        meanAtFire = events.get(0).snapshot().mean();
      }
    }
    assertThat(firedAt).isBetween(10, 600);
    // still inside the range seen while learning: no threshold above normal could have fired
    assertThat(meanAtFire).isLessThan(learnedMax);
  }

  @Test
  void anomaly_perKey_eachKeyHasItsOwnDetector() {
    KeyedWindows perTool =
        KeyedWindows.builder()
            .window(WindowConfig.builder().length(STEP).buckets(10).stripes(1).build())
            .timeSource(time)
            .build();
    for (String key : List.of("whois", "dig")) {
      monitor.add(
          AlertRule.anomaly(
                  "anomaly:" + key, perTool, key, Measure.mean(), AnomalyDetectorConfig.defaults())
              .above(0.5)
              .build());
    }
    // learning: a new extreme of the noise may alarm early on; it resolves at the next evaluation
    for (int i = 0;
        i < LEARN
            || monitor.state("anomaly:dig") != State.OK
            || monitor.state("anomaly:whois") != State.OK;
        i++) {
      time.advance(STEP);
      fill(v -> perTool.record("whois", v), 100);
      fill(v -> perTool.record("dig", v), 300);
      monitor.evaluate();
    }
    time.advance(STEP);
    fill(v -> perTool.record("whois", v), 100);
    fill(v -> perTool.record("dig", v), 500);
    assertThat(monitor.evaluate())
        .singleElement()
        .satisfies(e -> assertThat(e.rule().name()).isEqualTo("anomaly:dig"));
    assertThat(monitor.state("anomaly:whois")).isEqualTo(State.OK);
  }

  @Test
  void anomaly_fireAfter_needsTheScoreToHold() {
    RollingWindow w = window();
    monitor.add(meanAnomaly("held", w).above(0.5).fireAfter(Duration.ofSeconds(30)).build());
    for (int i = 0; i < LEARN; i++) {
      step(w::record, 100);
    }
    // one anomalous window: the detector alarms once and goes quiet, so nothing fires
    assertThat(step(w::record, 400)).isEmpty();
    assertThat(monitor.state("held")).isEqualTo(State.PENDING);
    assertThat(step(w::record, 100)).isEmpty();
    assertThat(monitor.state("held")).isEqualTo(State.OK);
  }

  @Test
  void anomaly_emptyWindow_isNoDataAndNotShownToTheDetector() {
    RollingWindow w = window();
    monitor.add(meanAnomaly("gaps", w).above(0.5).build());
    for (int i = 0; i < LEARN; i++) {
      step(w::record, 100);
      time.advance(STEP); // an empty window between every two full ones
      assertThat(monitor.evaluate()).isEmpty();
      assertThat(monitor.lastValue("gaps")).isNaN();
    }
    assertThat(step(w::record, 200)).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void lastValue_beforeAnyEvaluation_isNaN_andUnknownNamesAreRefused() {
    monitor.add(meanAnomaly("fresh", window()).above(0.5).build());
    assertThat(monitor.lastValue("fresh")).isNaN();
    assertThatThrownBy(() -> monitor.lastValue("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
  }

  @Test
  void anomaly_factoryArguments_areChecked() {
    assertThatThrownBy(() -> AlertRule.anomaly("x", window(), Measure.mean(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("detector");
    KeyedWindows keyed = KeyedWindows.builder().timeSource(time).build();
    assertThatThrownBy(
            () ->
                AlertRule.anomaly("x", keyed, "", Measure.mean(), AnomalyDetectorConfig.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThat(meanAnomaly("named", window()).above(0.5).build().toString())
        .contains("anomaly")
        .contains("detector=AnomalyDetectorConfig[ENSEMBLE");
  }
}
