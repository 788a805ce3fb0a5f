package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a sliding-log key costs Redis in memory: 8 bytes per admitted request, not more. */
@ExtendWith(RedisExtension.class)
class DecisionMemoryTest {
  private static final int HEADER = 48;
  private static final int ENTRY = 8;

  /** The key's name, Redis's object and dictionary entry. */
  private static final int OVERHEAD = 512;

  @Test
  void fullSlidingLog_holdsEightBytesPerRequest(RedisProcess server) {
    RedisClient client = RedisTestSupport.client();
    try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
      RedisBackend backend = RedisBackend.builder(connection).build();
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
      String name = RedisTestSupport.uniqueName("memory");
      for (int limit : new int[] {100, 1_000, 5_000}) {
        RateLimiter limiter =
            backend.rateLimiter(
                name,
                RateLimitConfig.builder()
                    .limit(limit)
                    .window(Duration.ofMinutes(1))
                    .timeSource(time)
                    .build());
        String user = "user-" + limit;
        for (int i = 0; i < limit; i++) {
          assertThat(limiter.tryAcquire(user).allowed()).isTrue();
          time.advanceNanos(1_000);
        }
        assertThat(limiter.tryAcquire(user).allowed()).isFalse();
        String key = RedisTestKit.rateLimiterKeys("ringtail", name, user)[0];
        long payload = HEADER + (long) ENTRY * limit;
        assertThat(connection.sync().strlen(key)).isEqualTo(payload);
        assertThat(connection.sync().memoryUsage(key))
            .as("MEMORY USAGE at a limit of %d (the allocator rounds up by at most 1/32)", limit)
            .isLessThanOrEqualTo(payload + payload / 32 + OVERHEAD);
        assertThat(connection.sync().pttl(key)).as("still expires").isPositive();
      }
    } finally {
      RedisTestSupport.shutdown(client);
    }
  }
}
