package io.ringtail.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import java.time.Duration;

/**
 * Ringtail's Redis {@link RateLimiter} ({@code RedisBackend.rateLimiter}): an exact sliding log
 * per key, decided by one Lua call, over one Lettuce connection shared by every thread.
 * Thread-safe (the library's own guarantee).
 */
final class RingtailRedisLimiter implements RedisLimiter {
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RateLimiter limiter;

  RingtailRedisLimiter(RedisURI server, int limit, Duration window) {
    client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(10)));
    connection = client.connect(server);
    limiter = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(10)).build()
        .rateLimiter("bench", RateLimitConfig.builder().limit(limit).window(window).build());
  }

  @Override
  public String label() {
    return "Ringtail `RedisBackend.rateLimiter`";
  }

  @Override
  public String algorithm() {
    return "exact sliding log (ZSET), 1 Lua call";
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
