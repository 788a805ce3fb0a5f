package io.ringtail.redis;

import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import java.time.Duration;
import java.util.List;

/** A {@link RateLimiter} whose log lives in Redis (one ZSET per key), decided by rate_limit.lua. */
final class RedisRateLimiter extends RedisDecision implements RateLimiter {
  private final RateLimitConfig config;
  private final String window;
  private final String limit;
  private final String ttl;
  private final String cooldown;

  RedisRateLimiter(RedisBackend backend, String name, RateLimitConfig config) {
    super(backend, name);
    this.config = config;
    this.window = Decimal64.of(config.windowNanos());
    this.limit = Integer.toString(config.limit());
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
    this.cooldown = Decimal64.of(config.listenerCooldown().toNanos());
  }

  @Override
  public RateDecision tryAcquire(String key, long timeNanos) {
    requireKey(key);
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, "rl", "rm");
    List<Object> reply;
    try {
      reply = backend.runner.runSync(Scripts.RATE_LIMIT, keys,
          new String[] {Decimal64.time(timeNanos), window, limit, nextId(), ttl, cooldown, CHUNK});
    } catch (RedisUnavailableException e) {
      return backend.onOutage(e, () -> new RateDecision(true, config.limit(), config.limit(), Duration.ZERO),
          () -> new RateDecision(false, 0, config.limit(), backend.outageRetryAfter));
    }
    RateDecision d = new RateDecision((Long) reply.get(0) == 1, ((Long) reply.get(1)).intValue(),
        config.limit(), Decimal64.duration(reply.get(2)));
    if ((Long) reply.get(3) == 1) {
      notifyListener(config.listener(), key, d);
    }
    return d;
  }

  @Override
  public RateLimitConfig config() {
    return config;
  }
}
