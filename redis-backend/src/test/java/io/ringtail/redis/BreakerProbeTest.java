package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An open breaker does not hold calls back once Redis answers on the connection again. */
class BreakerProbeTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  @Test
  void openBreaker_goesHalfOpenAsSoonAsTheConnectionIsLiveAgain() {
    ClientResources resources = LocalSentinelGroup.fastReconnect();
    RedisClient client = RedisClient.create(resources);
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    try (RedisProcess server = RedisProcess.start();
        StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
      CircuitBreaker waitsAnHour =
          CircuitBreaker.of(
              "waits-an-hour",
              CircuitBreakerConfig.custom()
                  .minimumNumberOfCalls(2)
                  .slidingWindowSize(2)
                  .waitDurationInOpenState(Duration.ofHours(1))
                  .build());
      RedisBackend backend =
          RedisBackend.builder(connection)
              .commandTimeout(TIMEOUT)
              .circuitBreaker(waitsAnHour)
              .outagePolicy(OutagePolicy.THROW)
              .build();
      RateLimiter limiter =
          backend.rateLimiter(
              "probe",
              RateLimitConfig.builder().limit(3).timeSource(new ManualTimeSource(1L)).build());
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();

      server.kill();
      RedisTestSupport.await(
          Duration.ofSeconds(10),
          "the breaker to open",
          () -> {
            assertThatThrownBy(() -> limiter.tryAcquire("k"))
                .isInstanceOf(RedisUnavailableException.class);
            return waitsAnHour.getState() == CircuitBreaker.State.OPEN;
          });
      server.restart();

      RedisTestSupport.await(
          Duration.ofSeconds(20),
          "a decision answered after the restart, long before the breaker's hour",
          () -> {
            try {
              return limiter.tryAcquire("k").allowed();
            } catch (RedisUnavailableException refused) {
              return false;
            }
          },
          () -> "breaker " + waitsAnHour.getState());
      assertThat(waitsAnHour.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
      assertThat(waitsAnHour.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown();
    }
  }
}
