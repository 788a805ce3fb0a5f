package io.ringtail.decision;

import io.ringtail.internal.Checks;
import java.time.Duration;

/**
 * The in-process {@link RateLimiter}: per key, a ring of the admitted requests' timestamps.
 *
 * <p>A decision evicts expired timestamps from the ring's head, compares the size with the limit
 * and appends: each timestamp is appended once and evicted once, so a decision is O(1) amortised,
 * and the ring never holds more than {@code limit} longs. The ring starts at {@value
 * #INITIAL_CAPACITY} slots, doubles as the key's traffic needs, and falls back to the initial size
 * when the window empties, so a quiet key costs little whatever the limit.
 */
final class SlidingLogRateLimiter
    extends KeyedDecider<SlidingLogRateLimiter.Log, Void, RateDecision> implements RateLimiter {
  static final int INITIAL_CAPACITY = 4;

  private final RateLimitConfig config;
  private final int limit;

  SlidingLogRateLimiter(RateLimitConfig config, long maximumKeys) {
    super(config.settings(), maximumKeys, k -> new Log(Math.min(INITIAL_CAPACITY, config.limit())));
    this.config = config;
    this.limit = config.limit();
  }

  @Override
  boolean denies(RateDecision decision) {
    return !decision.allowed();
  }

  @Override
  public RateDecision tryAcquire(String key, long timeNanos) {
    Checks.requireNonEmpty("key", key);
    return decide(key, null, 1, timeNanos);
  }

  @Override
  RateDecision decideLocked(Log log, Void unused, long one, long timeNanos) {
    long t = log.advanceTo(timeNanos);
    log.evictUpTo(t - window);
    boolean allowed = log.size < limit;
    if (allowed) {
      log.append(t, limit);
    }
    int remaining = limit - log.size;
    Duration retryAfter =
        remaining > 0 ? Duration.ZERO : Duration.ofNanos(log.oldest() + window - t);
    RateDecision decision = new RateDecision(allowed, remaining, limit, retryAfter);
    trackDenial(log, !allowed, t);
    return decision;
  }

  @Override
  public RateLimitConfig config() {
    return config;
  }

  /** A ring of timestamps in time order; guarded by its monitor. */
  static final class Log extends MonotonicKeyState {
    long[] ring;
    int head;
    int size;

    Log(int capacity) {
      ring = new long[capacity];
    }

    /** Drops every timestamp at or before {@code cutoff}. */
    void evictUpTo(long cutoff) {
      while (size > 0 && ring[head] - cutoff <= 0) {
        head = head + 1 == ring.length ? 0 : head + 1;
        size--;
      }
      if (size == 0 && ring.length > INITIAL_CAPACITY) {
        ring = new long[INITIAL_CAPACITY];
        head = 0;
      }
    }

    void append(long t, int limit) {
      if (size == ring.length) {
        long[] grown = new long[Math.min(limit, ring.length * 2)];
        for (int i = 0; i < size; i++) {
          grown[i] = ring[(head + i) % ring.length];
        }
        ring = grown;
        head = 0;
      }
      int tail = head + size;
      ring[tail >= ring.length ? tail - ring.length : tail] = t;
      size++;
    }

    long oldest() {
      return ring[head];
    }
  }
}
