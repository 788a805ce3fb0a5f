package io.ringtail.alert;

import io.ringtail.RollingWindow;
import io.ringtail.WindowSnapshot;
import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.internal.Checks;
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
  private double measured = Double.NaN;
  private double baseline = Double.NaN;
  private double firedValue = Double.NaN;

  private record Point(long timeNanos, double value) {}

  RuleState(AlertRule rule) {
    this.rule = rule;
    this.history = rule.kind() == AlertRule.Kind.DEVIATION ? new ArrayDeque<>() : null;
    this.detector = rule.newDetector();
  }

  /**
   * A state continuing from {@code from} at {@code now}: its state (a pending period starting now),
   * values, baseline (if the rule keeps one) and fired value.
   *
   * @throws IllegalArgumentException if {@code from} is of another rule, or is firing without the
   *     baseline and fired value that resolving when back needs
   */
  RuleState(AlertRule rule, RuleSnapshot from, long now) {
    this(rule);
    Checks.requireNonNull("from", from);
    if (!from.rule().equals(rule.name())) {
      throw Checks.invalid("from", "a snapshot of rule " + rule.name(), from.rule());
    }
    if (from.firing()
        && rule.resolvesWhenBack()
        && !(Double.isFinite(from.baseline()) && Double.isFinite(from.firedValue()))) {
      throw Checks.invalid(
          "from", "a firing snapshot with a finite baseline and fired value", from);
    }
    this.state = from.state();
    this.pendingSince = now;
    this.lastValue = from.value();
    this.measured = from.measured();
    this.baseline = rule.tracksBaseline() ? from.baseline() : Double.NaN;
    this.firedValue = from.firedValue();
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

  /** Where the rule stands now. */
  RuleSnapshot snapshot() {
    return new RuleSnapshot(rule.name(), state, lastValue, measured, baseline, firedValue);
  }

  /** Evaluates at {@code now}; returns the event it caused, or null. */
  AlertEvent evaluate(long now, Function<RollingWindow, WindowSnapshot> snapshots) {
    WindowSnapshot s = snapshots.apply(rule.window());
    WindowSnapshot b =
        rule.kind() == AlertRule.Kind.RATIO ? snapshots.apply(rule.baseline()) : null;
    double m =
        rule.kind() == AlertRule.Kind.RATIO
            ? ratio(rule.measured(s), rule.measured(b))
            : rule.measured(s);
    double value =
        switch (rule.kind()) {
          case THRESHOLD, RATIO -> m;
          case DEVIATION -> deviation(now, m);
          case ANOMALY -> anomalyScore(m);
        };
    lastValue = value;
    measured = m;
    boolean wasFiring = state == AlertMonitor.State.FIRING;
    AlertEvent event = transition(now, value, m, s, b);
    if (rule.tracksBaseline()
        && !wasFiring
        && state != AlertMonitor.State.FIRING
        && !Double.isNaN(m)) {
      baseline = rule.nextBaseline(baseline, m);
    }
    return event;
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

  private AlertEvent transition(
      long now, double value, double m, WindowSnapshot s, WindowSnapshot b) {
    boolean breach = rule.breaches(value, m, baseline);
    switch (state) {
      case OK -> {
        boolean coolingDown = resolvedOnce && now - resolvedAt < rule.cooldownNanos();
        if (breach && !coolingDown) {
          if (rule.fireAfterNanos() == 0) {
            return fire(now, value, m, s, b);
          }
          state = AlertMonitor.State.PENDING;
          pendingSince = now;
        }
      }
      case PENDING -> {
        if (!breach) {
          state = AlertMonitor.State.OK;
        } else if (now - pendingSince >= rule.fireAfterNanos()) {
          return fire(now, value, m, s, b);
        }
      }
      case FIRING -> {
        if (rule.clears(value, m, firedValue, baseline)) {
          state = AlertMonitor.State.OK;
          resolvedAt = now;
          resolvedOnce = true;
          return new AlertEvent(rule, AlertEvent.Type.RESOLVED, value, s, b, now);
        }
      }
    }
    return null;
  }

  private AlertEvent fire(long now, double value, double m, WindowSnapshot s, WindowSnapshot b) {
    state = AlertMonitor.State.FIRING;
    firedValue = m;
    return new AlertEvent(rule, AlertEvent.Type.FIRED, value, s, b, now);
  }
}
