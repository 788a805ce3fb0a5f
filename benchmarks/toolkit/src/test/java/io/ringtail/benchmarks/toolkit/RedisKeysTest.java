package io.ringtail.benchmarks.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keys {@link RedisKeys} names are the keys the library writes on a real redis-server, and
 * every key the library wrote is among them.
 */
class RedisKeysTest {
  @Test
  void window_andDecisions_nameExactlyTheKeysTheLibraryWrites() {
    RedisClient client = RedisClient.create();
    try (RedisProcess server = RedisProcess.start();
        StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
      RedisBackend backend = RedisBackend.builder(connection).build();
      RedisRollingWindow window = backend.window("w").build();
      window.record(5);
      assertThat(window.flush(Duration.ofSeconds(10))).isTrue();
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
      Duration minute = Duration.ofMinutes(1);
      RateLimiter limiter =
          backend.rateLimiter(
              "rl", RateLimitConfig.builder().limit(10).window(minute).timeSource(time).build());
      ThresholdDetector detector =
          backend.thresholdDetector(
              "th",
              ThresholdConfig.builder().threshold(10).window(minute).timeSource(time).build());
      limiter.tryAcquire("user");
      detector.record("user", "event-1");

      // the rejected ZSET of a window appears only on a rejection, a threshold's previous-base
      // ZSET only after a rebase: the others exist after one call each
      List<String> written = connection.sync().keys("*");
      String[] windowKeys = RedisKeys.window("ringtail", "w");
      String[] threshold = RedisKeys.decision("ringtail", "th", "user", "te", "ti", "tm", "tp");
      assertThat(written)
          .contains(windowKeys[0], windowKeys[1], windowKeys[2])
          .contains(RedisKeys.decision("ringtail", "rl", "user", "rl"))
          .contains(threshold[0], threshold[1], threshold[2]);
      assertThat(written)
          .allSatisfy(
              k ->
                  assertThat(
                          List.of(
                              windowKeys[0],
                              windowKeys[1],
                              windowKeys[2],
                              windowKeys[3],
                              RedisKeys.decision("ringtail", "rl", "user", "rl")[0],
                              threshold[0],
                              threshold[1],
                              threshold[2],
                              threshold[3]))
                      .contains(k));
    } finally {
      client.shutdown();
    }
  }

  @Test
  void aNameTheLibraryWouldEscape_isRefused() {
    assertThatThrownBy(() -> RedisKeys.window("ringtail", "a{b}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a{b}");
    assertThatThrownBy(() -> RedisKeys.decision("ringtail", "n", "a:b", "rl"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }
}
