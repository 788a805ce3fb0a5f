package io.ringtail.spring.limit;

import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.redis.RedisBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The {@code ringtail.limits} decisions in Redis, shared by every instance of the application under
 * {@code http:<limit name>}, on the Redis server's clock: exact fleet-wide. While Redis cannot
 * answer, the backend's outage policy answers. Thread-safe.
 */
final class RedisLimitDecisions implements LimitDecisions {
  private static final long CLOCK_RETRY_NANOS = Duration.ofSeconds(1).toNanos();

  private final RedisBackend backend;
  private final Duration unavailableRetryAfter;
  private final ServerTime time = new ServerTime();

  RedisLimitDecisions(RedisBackend backend, Duration unavailableRetryAfter) {
    this.backend = Objects.requireNonNull(backend, "backend");
    this.unavailableRetryAfter = Objects.requireNonNull(unavailableRetryAfter, "retryAfter");
  }

  @Override
  public RateLimiter slidingLog(String name, RateLimitConfig config, long maximumKeys) {
    return backend.rateLimiter("http:" + name, config);
  }

  @Override
  public RateLimiter bucketed(String name, RateLimitConfig config, long maximumKeys) {
    return backend.bucketedRateLimiter("http:" + name, config);
  }

  @Override
  public SumCap sumCap(String name, SumCapConfig config, long maximumKeys) {
    return backend.sumCap("http:" + name, config);
  }

  @Override
  public TimeSource timeSource() {
    return time;
  }

  @Override
  public boolean remote() {
    return true;
  }

  @Override
  public Duration unavailableRetryAfter() {
    return unavailableRetryAfter;
  }

  @Override
  public String toString() {
    return "redis";
  }

  /**
   * The backend's server clock ({@link RedisBackend#serverClock()}), which its first reading
   * measures, so an application starts while Redis is down. Until a measurement succeeds (tried at
   * most once a second) it reads the wall clock in epoch nanoseconds, the base the server clock
   * estimates; a decision Redis cannot answer then goes to the outage policy.
   */
  private final class ServerTime implements TimeSource {
    private volatile long retryAt = System.nanoTime();

    @Override
    public long nanoTime() {
      if (System.nanoTime() - retryAt >= 0) {
        try {
          return backend.serverClock().nanoTime();
        } catch (RuntimeException unavailable) {
          retryAt = System.nanoTime() + CLOCK_RETRY_NANOS;
        }
      }
      Instant now = Instant.now();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
  }
}
