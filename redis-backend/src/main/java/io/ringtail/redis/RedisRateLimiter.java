package io.ringtail.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.DecisionLayout.Arg;
import java.time.Duration;

/**
 * A {@link RateLimiter} whose state lives in Redis, one string per key: a sliding log (a ring of
 * the last {@code limit} admitted times) decided by rate_limit.lua, or 17 counters by sub-window
 * decided by bucketed_rate_limit.lua. Thread-safe.
 *
 * <p>Denials are answered locally while they must hold: either kind only opens up as time passes
 * (other clients add entries or counts, never remove them), so once Redis denied a key until {@code
 * u}, every request for that key timed before {@code u} is denied, with retry-after {@code u - t},
 * without a Redis call. For the sliding log, {@code u} is when the oldest time in the window
 * leaves; for the bucketed limiter, when enough of the oldest counted sub-windows leave. Its grid
 * of sub-windows is fixed by the key's first request (a grid starts again only once every bucket
 * has left, past any retry-after), so which buckets count at a time before {@code u} does not
 * depend on the decisions in between. These are kept per limiter for at most {@value
 * #MAX_LOCAL_DENIALS} keys (Caffeine, size-bounded) and counted in {@link
 * RedisBackend#localDenials()}.
 */
final class RedisRateLimiter extends RedisDecision<RateDecision> implements RateLimiter {
  static final String[] KEY_SUFFIXES = {"rl"};
  static final String[] BUCKETED_KEY_SUFFIXES = {"rc"};

  /** Sub-windows per window of the bucketed limiter (as the in-process one). */
  static final int BUCKETS = 16;

  static final int MAX_LOCAL_DENIALS = 65_536;

  /** How a limiter keeps a key's admitted requests in Redis. */
  enum Kind {
    /** The last {@code limit} admitted times, decided by rate_limit.lua. */
    SLIDING_LOG(Scripts.RATE_LIMIT, DecisionLayout.RATE_LIMIT, KEY_SUFFIXES),
    /** Counters by sub-window, decided by bucketed_rate_limit.lua. */
    BUCKETED(
        Scripts.BUCKETED_RATE_LIMIT, DecisionLayout.BUCKETED_RATE_LIMIT, BUCKETED_KEY_SUFFIXES);

    final LuaLibrary.Function function;
    final DecisionLayout layout;
    final String[] keySuffixes;

    Kind(LuaLibrary.Function function, DecisionLayout layout, String[] keySuffixes) {
      this.function = function;
      this.layout = layout;
      this.keySuffixes = keySuffixes;
    }
  }

  private final RateLimitConfig config;

  /**
   * rate_limit.lua's ARGS (deadline, time, window, limit, cooldown) or bucketed_rate_limit.lua's
   * (deadline, time, window, bucket width, limit, cooldown), the time field left for each call.
   */
  private final PackedArgs args;

  private final String ttl;
  private final Kind kind;
  private final Cache<String, Denial> denials =
      Caffeine.newBuilder().maximumSize(MAX_LOCAL_DENIALS).build();

  RedisRateLimiter(RedisBackend backend, String name, RateLimitConfig config, Kind kind) {
    super(backend, name);
    this.kind = kind;
    long w = config.windowNanos();
    requireWindow("rate limiter", config.window());
    this.config = config;
    this.args =
        kind.layout
            .args()
            .number(Arg.WINDOW, w)
            .number(Arg.LIMIT, config.limit())
            .number(Arg.COOLDOWN, cooldownNanos(config.listenerCooldown()));
    if (kind == Kind.BUCKETED) {
      args.number(Arg.BUCKET_WIDTH, w / BUCKETS + (w % BUCKETS == 0 ? 0 : 1));
    }
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
  }

  @Override
  boolean denies(RateDecision decision) {
    return !decision.allowed();
  }

  @Override
  public RateDecision tryAcquire(String key, long timeNanos) {
    requireKey(key);
    Denial known = denials.getIfPresent(key);
    if (known != null) {
      RateDecision local = known.decide(timeNanos, config.limit());
      if (local != null) {
        backend.localDenials.increment();
        answeredLocally.increment();
        return counted(local);
      }
      denials.asMap().remove(key, known);
    }
    DecisionReply.RateLimit reply;
    try {
      reply =
          DecisionReply.RateLimit.of(
              decide(
                  kind.function,
                  DecisionKeys.of(backend.keyPrefix, name, key, kind.keySuffixes),
                  args.with(Arg.TIME, timeNanos),
                  ttl));
    } catch (RedisUnavailableException e) {
      return onOutage(
          e,
          () -> new RateDecision(true, config.limit(), config.limit(), Duration.ZERO),
          () -> new RateDecision(false, 0, config.limit(), backend.outageRetryAfter));
    }
    boolean allowed = reply.allowed();
    long retry = reply.retryAfterNanos();
    RateDecision d =
        new RateDecision(allowed, reply.remaining(), config.limit(), Duration.ofNanos(retry));
    long deniedFor = reply.deniedForNanos();
    if (!allowed && deniedFor > 0) {
      denials.put(key, new Denial(timeNanos + deniedFor, timeNanos + deniedFor - retry));
    }
    if (reply.notifies()) {
      notifyListener(config.listener(), key, d);
    }
    return counted(d);
  }

  @Override
  public RateLimitConfig config() {
    return config;
  }

  /**
   * A key denied until {@code until}; its latest decided time moves on with local denials. Guarded
   * by its monitor.
   */
  private static final class Denial {
    private final long until;
    private long latest;

    Denial(long until, long latest) {
      this.until = until;
      this.latest = latest;
    }

    /**
     * The denial at {@code t} (decided as of the latest time, never before), or null once {@code
     * until} is reached.
     */
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
