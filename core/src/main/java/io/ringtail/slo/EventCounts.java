package io.ringtail.slo;

import io.ringtail.internal.Checks;

/**
 * The events of one objective over one window: how many there were and how many met the objective.
 * Counts from several processes add ({@link #plus}), so a status can be computed from counts merged
 * anywhere ({@link ObjectiveStatus#of}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param good events that met the objective
 * @param total all events, good or not
 */
public record EventCounts(long good, long total) {
  /** No event. */
  public static final EventCounts NONE = new EventCounts(0, 0);

  /**
   * Checks the counts.
   *
   * @throws IllegalArgumentException if good is negative or above total
   */
  public EventCounts {
    Checks.requireNonNegative("good", good);
    if (total < good) {
      throw Checks.invalid("total", "at least good (" + good + ")", total);
    }
  }

  /** Events that did not meet the objective. */
  public long bad() {
    return total - good;
  }

  /** {@code good / total}; NaN without events. */
  public double ratio() {
    return total == 0 ? Double.NaN : (double) good / total;
  }

  /** {@code bad / total}; NaN without events. */
  public double errorRatio() {
    return total == 0 ? Double.NaN : (double) bad() / total;
  }

  /** The counts of both, as for two processes' events merged. */
  public EventCounts plus(EventCounts other) {
    return new EventCounts(good + other.good, total + other.total);
  }
}
