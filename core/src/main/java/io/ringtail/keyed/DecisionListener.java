package io.ringtail.keyed;

/**
 * Observes the decisions that fire (a threshold reached) or deny (a limit or cap hit).
 *
 * <p>Called once per <em>crossing</em>: when a key goes from not firing to firing, or from
 * allowed to denied; not again for that key until it has crossed back and a configured
 * cooldown (in the decision's time base) has passed since the last notification. A decision
 * with no listener configured does no notification work at all.
 *
 * <p>Called on the deciding thread after the decision is made and outside any lock, so a
 * listener may call back into the decision it observes. It should be quick and must be
 * thread-safe: different keys notify concurrently. An exception it throws is logged and
 * otherwise ignored; it never changes or loses the decision.
 *
 * @param <D> the decision type: {@link ThresholdDecision}, {@link RateDecision} or
 *     {@link SumDecision}
 */
@FunctionalInterface
public interface DecisionListener<D> {

  /** The key just crossed; {@code decision} is the decision that crossed. */
  void onCrossing(String key, D decision);
}
