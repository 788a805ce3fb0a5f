package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
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
    RedisClient client = RedisClient.create(redisUri); // redis://host:port
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofMillis(250))); // see "Failure"
    StatefulRedisConnection<String, String> connection = client.connect(); // yours to close

    RedisBackend redis =
        RedisBackend.builder(connection) // or a StatefulRedisClusterConnection
            .commandTimeout(Duration.ofMillis(250))
            .outagePolicy(OutagePolicy.FAIL_OPEN) // what decisions answer during an outage
            .build();

    // A window the fleet shares by name: count, sum, mean, min, max, exact P95 of the last minute.
    RedisRollingWindow latency =
        redis.window("checkout-latency").length(Duration.ofMinutes(1)).build();
    latency.record(elapsedNanos); // asynchronous, never throws, never blocks > timeout
    WindowSnapshot s = latency.snapshot(); // the shared io.ringtail.WindowSnapshot
    double p95 = s.valueAtPercentile(95); // exact nearest rank, computed on the server

    // The keyed decisions, fleet-wide: swap ThresholdDetector.inProcess(config) for this.
    TimeSource fleetClock = redis.serverClock(); // one time base for the fleet (Redis TIME)
    ThresholdDetector failedLogons =
        redis.thresholdDetector(
            "failed-logons",
            ThresholdConfig.builder()
                .threshold(10)
                .window(Duration.ofSeconds(60))
                .timeSource(fleetClock)
                .build());
    RateLimiter perClient =
        redis.rateLimiter(
            "api",
            RateLimitConfig.builder()
                .limit(100)
                .window(Duration.ofMinutes(1))
                .timeSource(fleetClock)
                .build());
    SumCap purchases =
        redis.sumCap(
            "purchases",
            SumCapConfig.builder()
                .cap(new BigDecimal("10.00"))
                .window(Duration.ofDays(7))
                .timeSource(fleetClock)
                .build());
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

  @Test
  void fleetWindows_rawAndHistogram_shareOneBackend(RedisProcess server) {
    RedisClient client = RedisTestSupport.client();
    StatefulRedisConnection<String, String> connection = client.connect(server.uri());
    long latencyNanos = 7_000_000;
    try {
      // docs:fleet-windows:start
      RedisBackend redis = RedisBackend.builder(connection).build();

      // raw samples: exact percentiles, idempotent per event id, modest rates
      RedisRollingWindow logins = redis.window("failed-logins").build();

      // per-bucket histograms: any rate, within the configured precision
      RedisHistogramWindow checkout =
          redis
              .histogramWindow("checkout-latency")
              .config(WindowConfig.defaults()) // 60 s in 60 buckets, 2 significant digits
              .publishInterval(Duration.ofSeconds(1)) // default
              .build();
      checkout.record(latencyNanos); // local, no Redis call, 0 B
      RedisHistogramSnapshot fleet = checkout.snapshot();
      fleet.valueAtPercentile(95); // the whole fleet's P95, within 1 %
      fleet.stalenessNanos(); // how far behind the fleet view may be
      // docs:fleet-windows:end
      logins.record(1);
      assertThat(logins.flush(Duration.ofSeconds(5))).isTrue();
      assertThat(logins.snapshot().count()).isEqualTo(1);
      assertThat(checkout.flush(Duration.ofSeconds(5))).isTrue();
      RedisHistogramSnapshot published = checkout.snapshot();
      assertThat(published.count()).isEqualTo(1);
      assertThat(published.valueAtPercentile(95)).isCloseTo(7_000_000, within(70_000.0));
    } finally {
      connection.close();
      RedisTestSupport.shutdown(client);
    }
  }
}
