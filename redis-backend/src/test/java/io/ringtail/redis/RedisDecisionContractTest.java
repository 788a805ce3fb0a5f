package io.ringtail.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.keyed.RateLimitConfig;
import io.ringtail.keyed.RateLimiter;
import io.ringtail.keyed.RateLimiterContract;
import io.ringtail.keyed.SumCap;
import io.ringtail.keyed.SumCapConfig;
import io.ringtail.keyed.SumCapContract;
import io.ringtail.keyed.ThresholdConfig;
import io.ringtail.keyed.ThresholdDetector;
import io.ringtail.keyed.ThresholdDetectorContract;
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
