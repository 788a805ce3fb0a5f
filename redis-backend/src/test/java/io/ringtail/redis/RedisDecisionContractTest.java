package io.ringtail.redis;

import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.testkit.BackendOptions;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.testkit.BoundedRateLimiterContract;
import io.ringtail.testkit.RateLimiterContract;
import io.ringtail.testkit.SumCapContract;
import io.ringtail.testkit.ThresholdDetectorContract;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/** The keyed decisions' contract kits, run against the Redis decisions on a real redis-server. */
@ExtendWith(RedisExtension.class)
@BackendOptions(outagePolicy = OutagePolicy.THROW)
class RedisDecisionContractTest {
  static RedisBackend backend;

  @BeforeAll
  static void connect(RedisBackend redisBackend) {
    backend = redisBackend;
  }

  @Nested
  class Threshold extends ThresholdDetectorContract {
    @Override
    protected ThresholdDetector newDetector(ThresholdConfig config) {
      return backend.thresholdDetector("contract-threshold", config);
    }

    @Override
    protected int randomOperations() {
      return 2_000;
    }
  }

  @Nested
  class Rate extends RateLimiterContract {
    @Override
    protected RateLimiter newLimiter(RateLimitConfig config) {
      return backend.rateLimiter("contract-rate", config);
    }

    @Override
    protected int randomOperations() {
      return 2_000;
    }
  }

  @Nested
  class Bucketed extends BoundedRateLimiterContract {
    @Override
    protected RateLimiter newLimiter(RateLimitConfig config) {
      return backend.bucketedRateLimiter("contract-bucketed", config);
    }

    @Override
    protected Duration lateness(RateLimitConfig config) {
      long w = config.windowNanos();
      return Duration.ofNanos(w / 16 + (w % 16 == 0 ? 0 : 1) - 1);
    }

    @Override
    protected int randomOperations() {
      return 2_000;
    }
  }

  @Nested
  class Sum extends SumCapContract {
    @Override
    protected SumCap newCap(SumCapConfig config) {
      return backend.sumCap("contract-sum", config);
    }

    @Override
    protected int randomOperations() {
      return 2_000;
    }
  }
}
