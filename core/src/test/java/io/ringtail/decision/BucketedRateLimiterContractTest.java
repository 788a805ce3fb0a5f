package io.ringtail.decision;

import io.ringtail.testkit.BoundedRateLimiterContract;
import java.time.Duration;

/** The in-process bucketed {@link RateLimiter} against the bounded-limiter contract. */
class BucketedRateLimiterContractTest extends BoundedRateLimiterContract {
  @Override
  protected RateLimiter newLimiter(RateLimitConfig config) {
    return RateLimiter.inProcessBucketed(config);
  }

  @Override
  protected Duration lateness(RateLimitConfig config) {
    return Duration.ofNanos(BucketedRateLimiter.bucketWidth(config.windowNanos()) - 1);
  }
}
