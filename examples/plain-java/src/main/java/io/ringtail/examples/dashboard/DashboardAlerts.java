package io.ringtail.examples.dashboard;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.alert.AlertEvent;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The dashboard's alert rules, from {@code io.ringtail.alert}: the P95 of the short window against
 * the latency target (with hysteresis), the burn rate of a 99 % objective over the long window, and
 * the anomaly score of the short window's mean (the page shows the score; the banner follows the
 * two SLA rules only). Evaluated once per sample by the sampling thread; not thread-safe.
 */
final class DashboardAlerts {
  static final String P95_RULE = "p95-10s";
  static final String BURN_RULE = "slo-burn-60s";
  static final double OBJECTIVE = 0.99;
  static final double FAST_BURN = 5;
  static final String ANOMALY_RULE = "anomaly-mean-10s";

  /** One rule as the page shows it; {@code value} is its value at the last evaluation. */
  record RuleStatus(
      String name, String description, AlertMonitor.State state, long sinceNanos, double value) {}

  private final AlertMonitor monitor;
  private final Map<String, String> descriptions = new HashMap<>();
  private final Map<String, Long> firingSince = new HashMap<>();

  DashboardAlerts(
      RollingWindow shortWindow, RollingWindow longWindow, double sloMillis, TimeSource time) {
    long target = Math.round(sloMillis * 1e6);
    monitor =
        AlertMonitor.create(time)
            .add(
                AlertRule.threshold(P95_RULE, shortWindow, Measure.percentile(95))
                    .above(target)
                    .resolveBelow(0.8 * target)
                    .minimumSamples(20)
                    .build())
            .add(
                AlertRule.sloBurn(BURN_RULE, longWindow, target, OBJECTIVE)
                    .above(FAST_BURN)
                    .minimumSamples(100)
                    .cooldown(Duration.ofSeconds(5))
                    .build())
            .add(
                // a 60 s demo: learn from 5 evaluations instead of the default 150
                AlertRule.anomaly(
                        ANOMALY_RULE,
                        shortWindow,
                        Measure.mean(),
                        AnomalyDetectorConfig.builder().warmUp(5).build())
                    .above(0.5)
                    .minimumSamples(20)
                    .cooldown(Duration.ofSeconds(10))
                    .build());
    descriptions.put(
        P95_RULE,
        "P95 of the last 10 s above "
            + Format.millis(sloMillis)
            + " (resolves below "
            + Format.millis(0.8 * sloMillis)
            + ")");
    descriptions.put(
        BURN_RULE,
        String.format(
            Locale.ROOT,
            "last 60 s burning the %.0f %% ≤ %s objective's error budget over %.0fx too fast",
            OBJECTIVE * 100,
            Format.millis(sloMillis),
            FAST_BURN));
    descriptions.put(
        ANOMALY_RULE, "anomaly score of the last 10 s mean (streaming detector) at or above 0.5");
  }

  /** Evaluates every rule; returns the fired and resolved events, described for people. */
  List<String> evaluate(long elapsedNanos) {
    List<String> lines = new ArrayList<>();
    for (AlertEvent e : monitor.evaluate()) {
      String rule = e.rule().name();
      if (e.type() == AlertEvent.Type.FIRED) {
        firingSince.put(rule, elapsedNanos);
      } else {
        firingSince.remove(rule);
      }
      String value =
          switch (rule) {
            case P95_RULE -> Format.millis(e.value() / 1e6);
            case ANOMALY_RULE -> String.format(Locale.ROOT, "score %.2f", e.value());
            default -> String.format(Locale.ROOT, "burn rate %.1f", e.value());
          };
      lines.add(
          e.type()
              + " "
              + rule
              + " ("
              + (Double.isNaN(e.value()) ? "no data" : value)
              + "): "
              + descriptions.get(rule));
    }
    return lines;
  }

  List<RuleStatus> statuses() {
    List<RuleStatus> out = new ArrayList<>();
    for (AlertRule r : monitor.rules()) {
      out.add(
          new RuleStatus(
              r.name(),
              descriptions.get(r.name()),
              monitor.state(r.name()),
              firingSince.getOrDefault(r.name(), -1L),
              monitor.lastValue(r.name())));
    }
    return out;
  }

  /** Whether an SLA rule (P95 or burn rate) is firing. */
  boolean anyFiring() {
    return monitor.rules().stream()
        .filter(r -> !r.name().equals(ANOMALY_RULE))
        .anyMatch(r -> monitor.state(r.name()) == AlertMonitor.State.FIRING);
  }
}
