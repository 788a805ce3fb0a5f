package io.ringtail.decision;

import io.ringtail.testkit.RateLimiterContract;

/** The in-process {@link RateLimiter} against the backend-neutral contract. */
class SlidingLogRateLimiterContractTest extends RateLimiterContract {
  @Override
  protected RateLimiter newLimiter(RateLimitConfig config) {
    return RateLimiter.inProcess(config);
  }
}
