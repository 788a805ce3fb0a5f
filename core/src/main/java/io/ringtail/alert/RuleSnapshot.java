package io.ringtail.alert;

import io.ringtail.internal.Checks;

/**
 * Where one rule of an {@link AlertMonitor} stood after its last evaluation: read with {@link
 * AlertMonitor#snapshot}, and handed to another monitor with {@link AlertMonitor#add(AlertRule,
 * RuleSnapshot)} so that the rule goes on there (a fleet's next evaluator continues from the
 * baseline, and a fire it inherits resolves there, once).
 *
 * <p>It holds no clock reading and no detector or deviation history: a pending period starts again
 * at the hand-over, a cooldown is not carried over, and an anomaly rule's detector, a deviation
 * rule's history learn again. Immutable.
 *
 * @param rule the rule's name
 * @param state where it stood
 * @param value the rule's value at its last evaluation (the measure, burn rate, ratio, deviation or
 *     anomaly score); NaN before the first or when there was no data
 * @param measured its measured value then (the measure of the window; for a ratio rule the ratio);
 *     NaN likewise
 * @param baseline the baseline of the measured values (see {@link AlertRule}); NaN when the rule
 *     keeps none or has not had data yet
 * @param firedValue the measured value at which it last fired; NaN if it never fired
 */
public record RuleSnapshot(
    String rule,
    AlertMonitor.State state,
    double value,
    double measured,
    double baseline,
    double firedValue) {

  /** Checks the name and the state. */
  public RuleSnapshot {
    Checks.requireNonBlank("rule", rule);
    Checks.requireNonNull("state", state);
  }

  /** Whether the rule was firing. */
  public boolean firing() {
    return state == AlertMonitor.State.FIRING;
  }
}
