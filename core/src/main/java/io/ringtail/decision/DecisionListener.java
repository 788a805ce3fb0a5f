package io.ringtail.decision;

/**
 * Observes the decisions that fire (a threshold reached) or deny (a limit or cap hit).
 *
 * <p>Called once per <em>crossing</em>: when a key goes from below its threshold to at or above it,
 * or from allowed to denied; not again for that key until it has crossed back and crosses anew. A
 * crossing less than the configured cooldown (in the decision's time base) after the key's previous
 * notification is not reported at all, so a flapping key notifies at most once per cooldown. A
 * decision with no listener configured does no notification work at all.
 *
 * <p>Called on the deciding thread after the decision is made and outside any lock, so a listener
 * may call back into the decision it observes. It should be quick and must be thread-safe:
 * different keys notify concurrently. An exception it throws is logged and otherwise ignored; it
 * never changes or loses the decision.
 *
 * @param <D> the decision type: {@link ThresholdDecision}, {@link RateDecision} or {@link
 *     SumDecision}
 */
@FunctionalInterface
public interface DecisionListener<D> {

  /** The key just crossed; {@code decision} is the decision that crossed. */
  void onCrossing(String key, D decision);
}
