package io.ringtail.alert;

import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import java.util.Optional;

/**
 * A rule {@linkplain Type#FIRED fired} or {@linkplain Type#RESOLVED resolved}, with the value and
 * the snapshot (and, for a ratio rule, the baseline snapshot) that made it so.
 *
 * <p>Immutable and thread-safe.
 */
public final class AlertEvent {
  /** What happened to the rule. */
  public enum Type {
    /** The rule started firing. */
    FIRED,
    /** The rule stopped firing. */
    RESOLVED
  }

  private final AlertRule rule;
  private final Type type;
  private final double value;
  private final WindowSnapshot snapshot;
  private final WindowSnapshot baseline;
  private final long timeNanos;

  AlertEvent(
      AlertRule rule,
      Type type,
      double value,
      WindowSnapshot snapshot,
      WindowSnapshot baseline,
      long timeNanos) {
    this.rule = Checks.requireNonNull("rule", rule);
    this.type = Checks.requireNonNull("type", type);
    this.value = value;
    this.snapshot = Checks.requireNonNull("snapshot", snapshot);
    this.baseline = baseline;
    this.timeNanos = timeNanos;
  }

  /** The rule. */
  public AlertRule rule() {
    return rule;
  }

  /** Fired or resolved. */
  public Type type() {
    return type;
  }

  /**
   * The rule's value at this evaluation: the measure for a threshold rule, the burn rate, the
   * ratio, the number of standard deviations or the anomaly score; NaN if there was no data (a
   * resolve on silence).
   */
  public double value() {
    return value;
  }

  /** The snapshot of the rule's window that caused the event. */
  public WindowSnapshot snapshot() {
    return snapshot;
  }

  /** For a ratio rule, the snapshot of the baseline window; empty otherwise. */
  public Optional<WindowSnapshot> baselineSnapshot() {
    return Optional.ofNullable(baseline);
  }

  /** The monitor's time-source reading at the evaluation. */
  public long timeNanos() {
    return timeNanos;
  }

  @Override
  public String toString() {
    return "AlertEvent["
        + type
        + " "
        + rule.name()
        + ", value="
        + value
        + ", at="
        + timeNanos
        + ", snapshot="
        + snapshot
        + (baseline == null ? "" : ", baseline=" + baseline)
        + "]";
  }
}
