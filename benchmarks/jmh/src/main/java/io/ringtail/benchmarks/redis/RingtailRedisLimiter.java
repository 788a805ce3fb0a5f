package io.ringtail.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import java.time.Duration;

/**
 * Ringtail's Redis {@link RateLimiter}: the exact sliding log ({@code RedisBackend.rateLimiter},
 * repeated denials answered in-process) or the constant-memory bucketed limiter ({@code
 * RedisBackend.bucketedRateLimiter}), each decided by one Lua call, over one Lettuce connection
 * shared by every thread. Thread-safe (the library's own guarantee).
 */
final class RingtailRedisLimiter implements RedisLimiter {
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RateLimiter limiter;
  private final boolean bucketed;

  RingtailRedisLimiter(RedisURI server, int limit, Duration window, boolean bucketed) {
    this.bucketed = bucketed;
    client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(10)));
    connection = client.connect(server);
    RedisBackend backend =
        RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(10)).build();
    RateLimitConfig config = RateLimitConfig.builder().limit(limit).window(window).build();
    limiter =
        bucketed
            ? backend.bucketedRateLimiter("bench", config)
            : backend.rateLimiter("bench", config);
  }

  @Override
  public String label() {
    return bucketed
        ? "Ringtail `RedisBackend.bucketedRateLimiter`"
        : "Ringtail `RedisBackend.rateLimiter`";
  }

  @Override
  public String algorithm() {
    return bucketed
        ? "17 counters by 1/16 window (one string), 1 Lua call"
        : "exact sliding log (ring of times, one string), 1 Lua call; repeated denials in-process";
  }

  @Override
  public boolean tryAcquire(String key) {
    return limiter.tryAcquire(key).allowed();
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
