package io.ringtail.redis;

import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.testkit.RateLimiterContract;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.testkit.SumCapContract;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.testkit.ThresholdDetectorContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/** The keyed decisions' contract kits, run against the Redis decisions on a real redis-server. */
@ExtendWith(RedisExtension.class)
class RedisDecisionContractTest {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  static RedisBackend backend;

  @BeforeAll
  static void connect(RedisProcess redis) {
    client = RedisTestSupport.client();
    connection = RedisTestSupport.connect(client, redis);
    backend = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(5))
        .outagePolicy(OutagePolicy.THROW).build();
  }

  @AfterAll
  static void close() {
    connection.close();
    RedisTestSupport.shutdown(client);
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
