package io.ringtail.benchmarks.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson 3.52 {@code RRateLimiter}: one limiter object per key, its rate set once with {@code
 * trySetRate(OVERALL, limit, window, keep-alive window + 120 s)} on first use, then {@code
 * tryAcquire()}: a log of permits in a ZSET, decided by one Lua call. Redisson's default
 * single-server connection pool. Thread-safe (the library's own guarantee; the per-key map is a
 * {@link ConcurrentHashMap}).
 */
final class RedissonRedisLimiter implements RedisLimiter {
  private final RedissonClient redisson;
  private final ConcurrentHashMap<String, RRateLimiter> limiters = new ConcurrentHashMap<>();
  private final int limit;
  private final Duration window;

  RedissonRedisLimiter(RedisURI server, int limit, Duration window) {
    Config config = new Config();
    config.useSingleServer().setAddress("redis://" + server.getHost() + ":" + server.getPort());
    redisson = Redisson.create(config);
    this.limit = limit;
    this.window = window;
  }

  @Override
  public String label() {
    return "Redisson 3.52 `RRateLimiter`";
  }

  @Override
  public String algorithm() {
    return "sliding log of permits (ZSET), 1 Lua call";
  }

  @Override
  public boolean tryAcquire(String key) {
    return limiters.computeIfAbsent(key, this::create).tryAcquire();
  }

  private RRateLimiter create(String key) {
    RRateLimiter limiter = redisson.getRateLimiter(key);
    limiter.trySetRate(RateType.OVERALL, limit, window, window.plusSeconds(120));
    return limiter;
  }

  @Override
  public void close() {
    redisson.shutdown();
  }
}
