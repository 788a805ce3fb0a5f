package io.ringtail.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import java.time.Duration;
import java.util.List;

/**
 * A {@link RateLimiter} whose log lives in Redis (one sorted set per key), decided by
 * rate_limit.lua. Thread-safe.
 *
 * <p>Denials are answered locally while they must hold: a sliding log only opens up as time
 * passes (other clients add entries, never remove them), so once Redis denied a key until
 * {@code u}, every request for that key timed before {@code u} is denied, with retry-after
 * {@code u - t}, without a Redis call. These are kept per limiter for at most
 * {@value #MAX_LOCAL_DENIALS} keys (Caffeine, size-bounded) and counted in
 * {@link RedisBackend#localDenials()}.
 */
final class RedisRateLimiter extends RedisDecision implements RateLimiter {
  static final String[] KEY_SUFFIXES = {"rq", "rp", "rk"};
  static final int MAX_LOCAL_DENIALS = 65_536;
  private static final String CHUNK = "1000";
  private final RateLimitConfig config;
  private final String window;
  private final String limit;
  private final String ttl;
  private final String cooldown;
  private final Cache<String, Denial> denials = Caffeine.newBuilder().maximumSize(MAX_LOCAL_DENIALS).build();

  RedisRateLimiter(RedisBackend backend, String name, RateLimitConfig config) {
    super(backend, name);
    requireWindow("rate limiter", config.window());
    this.config = config;
    this.window = Long.toString(config.windowNanos());
    this.limit = Integer.toString(config.limit());
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
    this.cooldown = Long.toString(config.listenerCooldown().toNanos());
  }

  @Override
  public RateDecision tryAcquire(String key, long timeNanos) {
    requireKey(key);
    Denial known = denials.getIfPresent(key);
    if (known != null) {
      RateDecision local = known.decide(timeNanos, config.limit());
      if (local != null) {
        backend.localDenials.increment();
        return local;
      }
      denials.asMap().remove(key, known);
    }
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, KEY_SUFFIXES);
    List<Object> reply;
    try {
      reply = decide(Scripts.RATE_LIMIT, keys, new String[] {null, Long.toString(timeNanos >>> 32),
          Long.toString(timeNanos & 0xFFFF_FFFFL), window, limit, nextId(), ttl, cooldown, CHUNK});
    } catch (RedisUnavailableException e) {
      return backend.onOutage(e, () -> new RateDecision(true, config.limit(), config.limit(), Duration.ZERO),
          () -> new RateDecision(false, 0, config.limit(), backend.outageRetryAfter));
    }
    boolean allowed = (Long) reply.get(0) == 1;
    RateDecision d = new RateDecision(allowed, ((Long) reply.get(1)).intValue(), config.limit(),
        Duration.ofNanos((Long) reply.get(2)));
    long untilFromSent = (Long) reply.get(4);
    if (!allowed && untilFromSent > 0) {
      denials.put(key, new Denial(timeNanos + untilFromSent, timeNanos + untilFromSent - (Long) reply.get(2)));
    }
    if ((Long) reply.get(3) == 1) {
      notifyListener(config.listener(), key, d);
    }
    return d;
  }

  @Override
  public RateLimitConfig config() {
    return config;
  }

  /** A key denied until {@code until}; its latest decided time moves on with local denials. Guarded by its monitor. */
  private static final class Denial {
    private final long until;
    private long latest;

    Denial(long until, long latest) {
      this.until = until;
      this.latest = latest;
    }

    /** The denial at {@code t} (decided as of the latest time, never before), or null once {@code until} is reached. */
    synchronized RateDecision decide(long t, int limit) {
      long at = t - latest < 0 ? latest : t;
      if (at - until >= 0) {
        return null;
      }
      latest = at;
      return new RateDecision(false, 0, limit, Duration.ofNanos(until - at));
    }
  }
}
