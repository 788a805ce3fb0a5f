package io.ringtail.decision;

import io.ringtail.internal.Checks;

/**
 * A rate limiter: at most {@code N} requests per key in any rolling window {@code W}. The
 * sliding-log limiters ({@link #inProcess}, and the Redis one) decide exactly as below; the
 * bucketed ones ({@link #inProcessBucketed}) hold a fixed few counters per key whatever the limit,
 * never admit more than {@code N} in any window either, and may deny a request the exact log would
 * admit, letting a key through again at most {@code ceil(W / 16) - 1} ns later.
 *
 * <h2>Semantics</h2>
 *
 * A request for a key at time {@code t} is admitted iff fewer than {@code N} of the key's admitted
 * requests lie in {@code (t - W, t]}; an admitted request is recorded at {@code t}, a denied one is
 * not recorded at all. So no interval of length {@code W} ever holds more than {@code N} admitted
 * requests, however they straddle any boundary (there is no fixed window to straddle). Time never
 * runs backwards for a key: a request timed before the latest request already decided for its key
 * is decided, and recorded, as of that latest time.
 *
 * <p>Thread-safe; every call is atomic per key (see the package documentation).
 */
public interface RateLimiter {

  /**
   * An in-process limiter holding at most 1,000,000 keys (see {@link #inProcess(RateLimitConfig,
   * long)}).
   */
  static RateLimiter inProcess(RateLimitConfig config) {
    return inProcess(config, KeyedStates.DEFAULT_MAXIMUM_KEYS);
  }

  /**
   * An in-process limiter holding at most {@code maximumKeys} keys. Past that bound the keys least
   * likely to be used again are forgotten (Caffeine's size eviction), as is any key idle for longer
   * than {@link RateLimitConfig#idleExpiry()} on the time source; there is no background thread. A
   * forgotten key starts afresh.
   *
   * <p>Memory per key: about 150 bytes (cache entry and state), the key string, and 8 bytes per
   * request in its window (at most {@code limit}, as a ring that grows on demand): 250 bytes for a
   * key with 3 requests in its window, 700 bytes for a key at a limit of 60 (measured by {@code
   * MillionKeysFootprintTest}).
   *
   * @throws NullPointerException if config is null
   * @throws IllegalArgumentException if maximumKeys is not positive
   */
  static RateLimiter inProcess(RateLimitConfig config, long maximumKeys) {
    return new SlidingLogRateLimiter(Checks.requireNonNull("config", config), maximumKeys);
  }

  /**
   * An in-process bucketed limiter holding at most 1,000,000 keys: per key, 17 counters of admitted
   * requests by sub-window of {@code g = ceil(W / 16)}, about 90 bytes whatever the limit (on top
   * of the per-key entry every in-process decision pays). It never admits more than the limit in
   * any window; it denies only when the limit is reached in the window stretched back by {@code g -
   * 1} ns, and its retry-after is at most {@code g - 1} ns longer than the exact log's. For limits
   * in the thousands and above, where the exact log's 8 bytes per admitted request cost too much.
   */
  static RateLimiter inProcessBucketed(RateLimitConfig config) {
    return inProcessBucketed(config, KeyedStates.DEFAULT_MAXIMUM_KEYS);
  }

  /**
   * {@link #inProcessBucketed(RateLimitConfig)} holding at most {@code maximumKeys} keys, forgotten
   * as in {@link #inProcess(RateLimitConfig, long)}.
   *
   * @throws IllegalArgumentException if maximumKeys is not positive or config is null
   */
  static RateLimiter inProcessBucketed(RateLimitConfig config, long maximumKeys) {
    return new BucketedRateLimiter(Checks.requireNonNull("config", config), maximumKeys);
  }

  /** Decides a request made now, on the configuration's time source. */
  default RateDecision tryAcquire(String key) {
    return tryAcquire(key, config().timeSource().nanoTime());
  }

  /**
   * Decides a request made at {@code timeNanos} on the configuration's time base.
   *
   * @throws NullPointerException if the key is null
   * @throws IllegalArgumentException if the key is empty; nothing is recorded
   */
  RateDecision tryAcquire(String key, long timeNanos);

  /** The rule this limiter applies. */
  RateLimitConfig config();
}
