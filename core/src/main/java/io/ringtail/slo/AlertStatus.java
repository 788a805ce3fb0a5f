package io.ringtail.slo;

import io.ringtail.internal.Checks;

/**
 * Where one {@link BurnRateAlert} of one objective stands at one status: the burn rates over its
 * two windows, and whether its condition holds. The condition is a pure function of the counts:
 * this value says whether the alert fires <i>now</i>; turning that into fired and resolved events
 * (once each) is the job of whoever evaluates statuses over time.
 *
 * <p>Immutable and thread-safe.
 *
 * @param alert the alert
 * @param longBurnRate the burn rate over its long window; NaN without events
 * @param shortBurnRate the burn rate over its short window; NaN without events
 */
public record AlertStatus(BurnRateAlert alert, double longBurnRate, double shortBurnRate) {

  /** Checks the alert is given. */
  public AlertStatus {
    Checks.requireNonNull("alert", alert);
  }

  /**
   * The smaller of the two burn rates (NaN if either window has no events): the condition holds
   * exactly when this value is above the factor, so a threshold rule on it reproduces the alert.
   */
  public double value() {
    return Math.min(longBurnRate, shortBurnRate);
  }

  /** Whether both burn rates are above the alert's factor (never without events). */
  public boolean firing() {
    return value() > alert.factor();
  }
}
