package io.ringtail.decision;

/**
 * A decision that counts what it decides: every in-process and Redis {@link RateLimiter}, {@link
 * SumCap} and {@link ThresholdDetector} of Ringtail implements it. Counting costs one uncontended
 * {@code LongAdder} increment per decision.
 */
public interface CountsDecisions {

  /** What this decision has decided since it was built, as of now. */
  DecisionCounts decisionCounts();
}
