package io.ringtail.decision;

import io.ringtail.internal.Checks;

/**
 * What a {@link ThresholdDetector} decided about one event: whether it counted, how many events the
 * key now holds within its window, and whether the key fires.
 *
 * <p>Immutable and thread-safe.
 *
 * @param outcome what happened to the event
 * @param count distinct events the key holds within its window after this event, at most {@link
 *     ThresholdConfig#maxEventsPerKey()}
 * @param threshold the configured threshold
 * @param crossed whether this event took the key from below the threshold to at or above it: it was
 *     counted, and before it fewer than {@code threshold} events lay in the window ending at the
 *     key's (possibly just advanced) latest time
 */
public record ThresholdDecision(Outcome outcome, int count, int threshold, boolean crossed) {

  /** What happened to an event. */
  public enum Outcome {
    /** A new event within the window: counted. */
    COUNTED,
    /** An event id the key already holds within its window: not counted again. */
    DUPLICATE,
    /** An event timed at or before {@code latest - window} for its key: too old to count. */
    EXPIRED
  }

  /** Validates the components. */
  public ThresholdDecision {
    Checks.requireNonNull("outcome", outcome);
    Checks.requireBetween("count", count, 0, Integer.MAX_VALUE);
    Checks.requirePositive("threshold", threshold);
    if (crossed && (outcome != Outcome.COUNTED || count < threshold)) {
      throw Checks.invalid(
          "crossed",
          "false unless a counted event reaches the threshold ("
              + outcome
              + ", count "
              + count
              + ", threshold "
              + threshold
              + ")",
          crossed);
    }
  }

  /**
   * Whether this event fires the rule: it was counted and the key now holds at least {@link
   * #threshold()} events within its window. With a threshold of 10, the 10th event within the
   * window fires and the 9th does not; every further counted event within the window fires too (use
   * {@link #crossed()} or a {@link DecisionListener} to act once).
   */
  public boolean fired() {
    return outcome == Outcome.COUNTED && count >= threshold;
  }
}
