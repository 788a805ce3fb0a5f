package io.ringtail.spring.slo;

import io.ringtail.internal.Checks;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ServiceLevelConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One service level as {@code ringtail.slo.<name>.*} declares it, checked: its {@link
 * ServiceLevelConfig}, the requests it counts ({@link RequestMatcher}), which statuses fail, and
 * how often its alerts are evaluated. A bad value fails with an {@link IllegalArgumentException}
 * naming the property ({@code ringtail.slo.checkout.objectives.fast.target must be ...}).
 * Immutable.
 */
final class Declared {
  /** The highest HTTP status a failure table holds. */
  static final int MAX_STATUS = 599;

  final ServiceLevelConfig config;
  final String observation;
  final RequestMatcher matcher;

  /** Whether each status, 0 to {@value #MAX_STATUS}, counts as failed. */
  final boolean[] failing;

  final Duration evaluationInterval;
  final boolean fleet;
  final Duration publishInterval;

  private Declared(
      ServiceLevelConfig config,
      String observation,
      RequestMatcher matcher,
      boolean[] failing,
      Duration evaluationInterval,
      boolean fleet,
      Duration publishInterval) {
    this.config = config;
    this.observation = observation;
    this.matcher = matcher;
    this.failing = failing;
    this.evaluationInterval = evaluationInterval;
    this.fleet = fleet;
    this.publishInterval = publishInterval;
  }

  /** Every declared service level, in the order of the properties. */
  static List<Declared> of(RingtailSloProperties properties) {
    List<Declared> out = new ArrayList<>();
    properties.getSlo().forEach((name, slo) -> out.add(of(name, slo)));
    return out;
  }

  /** The service level {@code name}, checked. */
  static Declared of(String name, RingtailSloProperties.ServiceLevel slo) {
    String at = "ringtail.slo." + name;
    Objects.requireNonNull(slo, at);
    ServiceLevelConfig.Builder builder = builder(at, name);
    if (slo.getObjectives() == null || slo.getObjectives().isEmpty()) {
      throw Checks.invalidConfiguration(
          at
              + ".objectives must declare at least one objective"
              + " (ringtail.slo."
              + name
              + ".objectives.<objective>.target, and .threshold for latency)");
    }
    slo.getObjectives().forEach((o, objective) -> builder.objective(objective(at, o, objective)));
    builder.period(requirePositive(at + ".period", slo.getPeriod()));
    if (slo.getAlerts() != null && !slo.getAlerts().isEmpty()) {
      List<BurnRateAlert> alerts = new ArrayList<>();
      for (int i = 0; i < slo.getAlerts().size(); i++) {
        alerts.add(alert(at + ".alerts[" + i + "]", slo.getAlerts().get(i)));
      }
      builder.alerts(alerts);
    }
    ServiceLevelConfig config;
    try {
      config = builder.build();
    } catch (IllegalArgumentException e) {
      throw asProperties(at, e);
    }
    String observation = slo.getObservation();
    if (observation == null || observation.isBlank()) {
      throw Checks.invalid(at + ".observation", "an observation's name", observation);
    }
    return new Declared(
        config,
        observation.intern(),
        RequestMatcher.of(at, slo.getPaths(), slo.getMethods(), slo.getKeyValues()),
        failing(at + ".failures", slo.getFailures()),
        requirePositive(at + ".evaluation-interval", slo.getEvaluationInterval()),
        slo.isFleet(),
        requirePositive(at + ".publish-interval", slo.getPublishInterval()));
  }

  private static ServiceLevelConfig.Builder builder(String at, String name) {
    try {
      return ServiceLevelConfig.builder(name);
    } catch (IllegalArgumentException e) {
      throw Checks.atProperty(at, e);
    }
  }

  private static Objective objective(
      String at, String name, RingtailSloProperties.Objective objective) {
    String prefix = at + ".objectives." + name;
    if (objective == null || objective.getTarget() == null) {
      throw Checks.invalid(prefix + ".target", "set, between 0 and 1 exclusive", null);
    }
    double target = objective.getTarget();
    try {
      return objective.getThreshold() == null
          ? Objective.availability(name, target)
          : Objective.latency(name, objective.getThreshold(), target);
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      if (message.startsWith("target ")) {
        throw Checks.asProperty("target", prefix + ".target", e);
      }
      if (message.startsWith("threshold ")) {
        throw Checks.asProperty("threshold", prefix + ".threshold", e);
      }
      throw Checks.atProperty(prefix, e);
    }
  }

  private static BurnRateAlert alert(String at, RingtailSloProperties.Alert alert) {
    String severity = alert.getSeverity() == null ? "" : alert.getSeverity().trim();
    BurnRateAlert.Severity parsed = null;
    for (BurnRateAlert.Severity s : BurnRateAlert.Severity.values()) {
      if (s.label().equalsIgnoreCase(severity) || s.name().equalsIgnoreCase(severity)) {
        parsed = s;
      }
    }
    if (parsed == null) {
      throw Checks.invalid(at + ".severity", "page or ticket", alert.getSeverity());
    }
    if (alert.getFactor() == null) {
      throw Checks.invalid(at + ".factor", "set (a burn rate, such as 14.4)", null);
    }
    if (alert.getLongWindow() == null) {
      throw Checks.invalid(at + ".long-window", "set (a duration, such as 1h)", null);
    }
    if (alert.getShortWindow() == null) {
      throw Checks.invalid(at + ".short-window", "set (a duration, such as 5m)", null);
    }
    try {
      return BurnRateAlert.of(
          parsed, alert.getFactor(), alert.getLongWindow(), alert.getShortWindow());
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      if (message.startsWith("longWindow must be longer than shortWindow")) {
        throw Checks.invalid(
            at + ".long-window",
            "longer than " + at + ".short-window " + alert.getShortWindow(),
            alert.getLongWindow(),
            e);
      }
      for (String[] field :
          new String[][] {
            {"factor", ".factor"}, {"longWindow", ".long-window"}, {"shortWindow", ".short-window"}
          }) {
        if (message.startsWith(field[0] + " ")) {
          throw Checks.asProperty(field[0], at + field[1], e);
        }
      }
      throw Checks.atProperty(at, e);
    }
  }

  /**
   * A check of the whole configuration renamed to its properties: {@code period} and {@code
   * alerts[page-1h].factor} become {@code ringtail.slo.<name>.period}, {@code ...alerts}.
   */
  private static IllegalArgumentException asProperties(String at, IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    if (message.startsWith("period ")) {
      return Checks.asProperty("period", at + ".period", e);
    }
    if (message.startsWith("alerts")) {
      return Checks.atProperty(at + ".alerts", e);
    }
    if (message.startsWith("objective")) {
      return Checks.atProperty(at + ".objectives", e);
    }
    return Checks.atProperty(at, e);
  }

  private static Duration requirePositive(String property, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw Checks.invalid(property, "a positive duration", value);
    }
    return value;
  }

  /**
   * The failure table of {@code failures}: status classes {@code 1xx} to {@code 5xx} and codes 100
   * to {@value #MAX_STATUS}.
   */
  static boolean[] failing(String property, List<String> failures) {
    boolean[] table = new boolean[MAX_STATUS + 1];
    if (failures == null || failures.isEmpty()) {
      throw Checks.invalid(property, "one or more status classes (5xx) or codes (503)", failures);
    }
    for (String f : failures) {
      String s = f == null ? "" : f.trim().toLowerCase(Locale.ROOT);
      if (s.length() == 3 && s.endsWith("xx") && s.charAt(0) >= '1' && s.charAt(0) <= '5') {
        int from = (s.charAt(0) - '0') * 100;
        for (int code = from; code < from + 100; code++) {
          table[code] = true;
        }
      } else if (s.length() == 3 && s.chars().allMatch(Character::isDigit)) {
        int code = Integer.parseInt(s);
        if (code < 100) {
          throw Checks.invalid(property, "status classes 1xx to 5xx or codes 100 to 599", f);
        }
        table[code] = true;
      } else {
        throw Checks.invalid(property, "status classes 1xx to 5xx or codes 100 to 599", f);
      }
    }
    return table;
  }

  /** Key values of an event describing this service level (for logs and the endpoint). */
  Map<String, Object> describe() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("observation", observation);
    out.putAll(matcher.describe());
    return out;
  }
}
