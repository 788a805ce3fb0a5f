package io.ringtail.decision;

/**
 * How many decisions one limiter, cap or detector has made since it was built: an immutable
 * point-in-time copy of its counters, for metrics. Every decision returned counts once in {@link
 * #allowed} or {@link #denied}; a call that throws (bad input, or a Redis outage under the {@code
 * THROW} policy) counts nowhere.
 *
 * @param allowed decisions that admitted (a limiter, a cap) or did not fire (a detector)
 * @param denied decisions that denied (a limiter, a cap) or fired (a detector)
 * @param answeredLocally of those, the decisions of a fleet-wide decision answered from this
 *     process's memory without a Redis call (a Redis rate limiter's held denials); 0 in-process
 * @param answeredByPolicy of those, the decisions of a fleet-wide decision answered by its outage
 *     policy because Redis could not answer; 0 in-process
 */
public record DecisionCounts(
    long allowed, long denied, long answeredLocally, long answeredByPolicy) {

  /** Decisions made: {@code allowed + denied}. */
  public long total() {
    return allowed + denied;
  }
}
