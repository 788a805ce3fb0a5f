package io.ringtail.decision;

import io.ringtail.testkit.BoundedRateLimiterContract;
import java.time.Duration;

/** The exact sliding log meets the bounded-limiter contract with no lateness at all. */
class SlidingLogBoundedContractTest extends BoundedRateLimiterContract {
  @Override
  protected RateLimiter newLimiter(RateLimitConfig config) {
    return RateLimiter.inProcess(config);
  }

  @Override
  protected Duration lateness(RateLimitConfig config) {
    return Duration.ZERO;
  }
}
