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
