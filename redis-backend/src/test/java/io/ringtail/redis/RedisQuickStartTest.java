package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis page's quick start, verbatim between the docs markers, against a real redis-server. */
@ExtendWith(RedisExtension.class)
class RedisQuickStartTest {

  @Test
  void quickStart_recordsIntoASharedWindowAndDecidesFleetWide(RedisProcess server) {
    RedisURI redisUri = server.uri();
    long elapsedNanos = 42_000_000;
    // docs:redis-quick-start:start
    RedisClient client = RedisClient.create(redisUri);                              // redis://host:port
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofMillis(250)));  // see "Failure"
    StatefulRedisConnection<String, String> connection = client.connect();           // yours to close

    RedisBackend redis = RedisBackend.builder(connection)    // or a StatefulRedisClusterConnection
        .commandTimeout(Duration.ofMillis(250))
        .outagePolicy(OutagePolicy.FAIL_OPEN)                 // what decisions answer during an outage
        .build();

    // A window every process shares by name: count, sum, mean, min, max, exact P95 of the last minute.
    RedisRollingWindow latency = redis.window("checkout-latency").length(Duration.ofMinutes(1)).build();
    latency.record(elapsedNanos);                 // asynchronous, never throws, never blocks > timeout
    WindowSnapshot s = latency.snapshot();        // the shared io.ringtail.WindowSnapshot
    double p95 = s.valueAtPercentile(95);         // exact nearest rank, computed on the server

    // The keyed decisions, fleet-wide: swap ThresholdDetector.inProcess(config) for this.
    TimeSource fleetClock = redis.serverClock();  // one time base for the fleet (Redis TIME)
    ThresholdDetector failedLogons = redis.thresholdDetector("failed-logons", ThresholdConfig.builder()
        .threshold(10).window(Duration.ofSeconds(60)).timeSource(fleetClock).build());
    RateLimiter perClient = redis.rateLimiter("api", RateLimitConfig.builder()
        .limit(100).window(Duration.ofMinutes(1)).timeSource(fleetClock).build());
    SumCap purchases = redis.sumCap("purchases", SumCapConfig.builder()
        .cap(new BigDecimal("10.00")).window(Duration.ofDays(7)).timeSource(fleetClock).build());
    // docs:redis-quick-start:end
    try {
      assertThat(s.count()).isEqualTo(1);
      assertThat(p95).isEqualTo(42_000_000);
      assertThat(fleetClock.nanoTime()).isPositive();
      String user = "user:" + UUID.randomUUID();
      assertThat(failedLogons.record(user, "evt-1").count()).isEqualTo(1);
      assertThat(perClient.tryAcquire(user).remaining()).isEqualTo(99);
      assertThat(purchases.tryAdd(user, new BigDecimal("3.33")).remaining())
          .isEqualByComparingTo(new BigDecimal("6.67"));
    } finally {
      connection.close();
      RedisTestSupport.shutdown(client);
    }
  }
}
