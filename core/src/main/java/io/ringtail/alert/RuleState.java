package io.ringtail.alert;

import io.ringtail.RollingWindow;
import io.ringtail.WindowSnapshot;
import io.ringtail.anomaly.AnomalyDetector;
import java.util.ArrayDeque;
import java.util.function.Function;

/** The mutable state of one rule in one monitor. Not thread-safe: the monitor serialises it. */
final class RuleState {
  static final int MAX_HISTORY = 4096;

  private final AlertRule rule;
  private AlertMonitor.State state = AlertMonitor.State.OK;
  private long pendingSince;
  private long resolvedAt;
  private boolean resolvedOnce;
  private final ArrayDeque<Point> history;
  private final AnomalyDetector detector;
  private double lastValue = Double.NaN;

  private record Point(long timeNanos, double value) {}

  RuleState(AlertRule rule) {
    this.rule = rule;
    this.history = rule.kind() == AlertRule.Kind.DEVIATION ? new ArrayDeque<>() : null;
    this.detector = rule.newDetector();
  }

  AlertRule rule() {
    return rule;
  }

  AlertMonitor.State state() {
    return state;
  }

  /** The rule's value at the last evaluation; NaN before the first or when there was no data. */
  double lastValue() {
    return lastValue;
  }

  /** Evaluates at {@code now}; returns the event it caused, or null. */
  AlertEvent evaluate(long now, Function<RollingWindow, WindowSnapshot> snapshots) {
    WindowSnapshot s = snapshots.apply(rule.window());
    WindowSnapshot b =
        rule.kind() == AlertRule.Kind.RATIO ? snapshots.apply(rule.baseline()) : null;
    double value =
        switch (rule.kind()) {
          case THRESHOLD -> rule.measured(s);
          case RATIO -> ratio(rule.measured(s), rule.measured(b));
          case DEVIATION -> deviation(now, rule.measured(s));
          case ANOMALY -> anomalyScore(rule.measured(s));
        };
    lastValue = value;
    return transition(now, value, s, b);
  }

  private static double ratio(double m, double baseline) {
    return Double.isNaN(m) || Double.isNaN(baseline) || baseline == 0.0 ? Double.NaN : m / baseline;
  }

  private double anomalyScore(double m) {
    return Double.isNaN(m) ? Double.NaN : detector.score(m);
  }

  private double deviation(long now, double m) {
    if (Double.isNaN(m)) {
      return Double.NaN;
    }
    while (!history.isEmpty() && now - history.peekFirst().timeNanos() > rule.baselineNanos()) {
      history.pollFirst();
    }
    double z = Double.NaN;
    int n = history.size();
    if (n >= rule.minimumBaselinePoints()) {
      double mean = 0;
      for (Point p : history) {
        mean += p.value();
      }
      mean /= n;
      double squares = 0;
      for (Point p : history) {
        double d = p.value() - mean;
        squares += d * d;
      }
      double sd = Math.sqrt(squares / (n - 1));
      double distance = Math.abs(m - mean);
      z = sd > 0 ? distance / sd : (distance == 0 ? 0.0 : Double.POSITIVE_INFINITY);
    }
    if (history.size() == MAX_HISTORY) {
      history.pollFirst();
    }
    history.addLast(new Point(now, m));
    return z;
  }

  private AlertEvent transition(long now, double value, WindowSnapshot s, WindowSnapshot b) {
    boolean breach = rule.breaches(value);
    switch (state) {
      case OK -> {
        boolean coolingDown = resolvedOnce && now - resolvedAt < rule.cooldownNanos();
        if (breach && !coolingDown) {
          if (rule.fireAfterNanos() == 0) {
            return fire(now, value, s, b);
          }
          state = AlertMonitor.State.PENDING;
          pendingSince = now;
        }
      }
      case PENDING -> {
        if (!breach) {
          state = AlertMonitor.State.OK;
        } else if (now - pendingSince >= rule.fireAfterNanos()) {
          return fire(now, value, s, b);
        }
      }
      case FIRING -> {
        if (rule.clears(value)) {
          state = AlertMonitor.State.OK;
          resolvedAt = now;
          resolvedOnce = true;
          return new AlertEvent(rule, AlertEvent.Type.RESOLVED, value, s, b, now);
        }
      }
    }
    return null;
  }

  private AlertEvent fire(long now, double value, WindowSnapshot s, WindowSnapshot b) {
    state = AlertMonitor.State.FIRING;
    return new AlertEvent(rule, AlertEvent.Type.FIRED, value, s, b, now);
  }
}
