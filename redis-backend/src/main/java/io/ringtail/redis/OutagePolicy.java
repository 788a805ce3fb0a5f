package io.ringtail.redis;

/**
 * What a Redis-backed decision answers when Redis cannot (timeout, lost connection, open circuit
 * breaker). Either way the decision is counted in {@link RedisBackend#outageDecisions()} and
 * nothing is recorded.
 */
public enum OutagePolicy {
  /**
   * Let it through: a rate limiter admits, a sum cap admits (an amount that alone exceeds the cap
   * is still denied), a threshold detector does not fire.
   */
  FAIL_OPEN,
  /**
   * Hold it back: a rate limiter and a sum cap deny with the backend's outage retry-after, a
   * threshold detector fires (alerts err on the side of alerting).
   */
  FAIL_CLOSED,
  /** Throw {@link RedisUnavailableException} to the caller. */
  THROW
}
