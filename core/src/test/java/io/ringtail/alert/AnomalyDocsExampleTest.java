package io.ringtail.alert;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The code of docs/anomaly-detection.md, run. */
class AnomalyDocsExampleTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final SplittableRandom random = new SplittableRandom(3);

  private void minute(KeyedWindows perEndpoint, double checkoutMs) {
    time.advance(Duration.ofMinutes(1));
    for (int i = 0; i < 50; i++) {
      perEndpoint.record("/checkout", (long) ((checkoutMs + random.nextDouble(-20, 20)) * 1e6));
      perEndpoint.record("/search", (long) ((80 + random.nextDouble(-20, 20)) * 1e6));
    }
  }

  @Test
  void perEndpointAnomalyRules_pageOnlyTheEndpointThatShifted() {
    KeyedWindows perEndpoint = KeyedWindows.builder().timeSource(time).build();
    List<String> pages = new ArrayList<>();
    // docs:anomaly-rule:start
    AnomalyDetectorConfig detector = AnomalyDetectorConfig.defaults(); // learns for 150 evaluations
    AlertMonitor monitor = AlertMonitor.create(time);
    for (String endpoint : List.of("/checkout", "/search")) {
      monitor.add(
          AlertRule.anomaly(
                  "anomaly:" + endpoint, perEndpoint, endpoint, Measure.percentile(95), detector)
              .above(0.5) // the alarm level tuned on NAB; raise it for fewer alarms
              .cooldown(Duration.ofMinutes(30))
              .build());
    }
    monitor.addListener(e -> pages.add(e.type() + " " + e.rule().name()));
    // monitor.scheduleWith(yourScheduler, Duration.ofMinutes(1)): one score per key per minute
    // docs:anomaly-rule:end

    for (int i = 0; i < 300; i++) {
      minute(perEndpoint, 200);
      monitor.evaluate();
    }
    pages.clear();
    minute(perEndpoint, 400);
    monitor.evaluate();
    assertThat(pages).containsExactly("FIRED anomaly:/checkout");
    assertThat(monitor.lastValue("anomaly:/checkout")).isBetween(0.5, 1.0);
    assertThat(monitor.lastValue("anomaly:/search")).isBetween(0.0, 0.5);
  }

  @Test
  void baselineOptions_pageOnlyARise_andHoldItUntilHalfWayBack() {
    KeyedWindows perEndpoint = KeyedWindows.builder().timeSource(time).build();
    AnomalyDetectorConfig detector = AnomalyDetectorConfig.defaults();
    AlertMonitor monitor = AlertMonitor.create(time);
    // docs:anomaly-baseline:start
    monitor.add(
        AlertRule.anomaly(
                "slower:/checkout", perEndpoint, "/checkout", Measure.percentile(95), detector)
            .atLeast(0.5)
            .onlyAboveBaseline() // a P95 that drops is no alarm
            .resolveWhenBack() // resolve once P95 is half-way back to its baseline
            .build());
    // monitor.snapshot("slower:/checkout").baseline(): the usual P95 (weighted mean, weight 0.1)
    // docs:anomaly-baseline:end
    for (int i = 0; i < 300; i++) {
      minute(perEndpoint, 200);
      monitor.evaluate();
    }
    minute(perEndpoint, 50);
    assertThat(monitor.evaluate()).as("faster").isEmpty();
    for (int i = 0; i < 300; i++) {
      minute(perEndpoint, 200);
      monitor.evaluate();
    }
    minute(perEndpoint, 400);
    assertThat(monitor.evaluate())
        .extracting(AlertEvent::type)
        .containsExactly(AlertEvent.Type.FIRED);
    for (int i = 0; i < 60; i++) {
      minute(perEndpoint, 400); // the score calms down; the P95 has not come back
      assertThat(monitor.evaluate()).isEmpty();
    }
    RuleSnapshot slow = monitor.snapshot("slower:/checkout");
    assertThat(slow.baseline()).isBetween(200e6, 240e6);
    assertThat(slow.firedValue()).isBetween(400e6, 440e6);
    minute(perEndpoint, 330); // not yet half-way back
    assertThat(monitor.evaluate()).isEmpty();
    minute(perEndpoint, 250);
    assertThat(monitor.evaluate())
        .extracting(AlertEvent::type)
        .containsExactly(AlertEvent.Type.RESOLVED);
  }

  @Test
  void aDetectorOnItsOwn_scoresOneValueAtATime() {
    double[] queueDepths = new double[400];
    for (int i = 0; i < queueDepths.length; i++) {
      queueDepths[i] = i < 390 ? 40 + random.nextInt(10) : 400;
    }
    List<Integer> alarms = new ArrayList<>();
    // docs:anomaly-detector:start
    AnomalyDetector queue = AnomalyDetectorConfig.builder().warmUp(100).build().newDetector();
    for (int i = 0; i < queueDepths.length; i++) {
      double score = queue.score(queueDepths[i]); // in [0, 1]; NaN and infinities score 0
      if (score >= 0.5) {
        alarms.add(i);
      }
    }
    // docs:anomaly-detector:end
    assertThat(alarms).containsExactly(390);
  }
}
