package io.ringtail.decision;

import io.ringtail.internal.Checks;
import java.time.Duration;

/**
 * The in-process constant-memory {@link RateLimiter}: per key, the admitted requests counted by
 * sub-window of {@code g = ceil(W / 16)} in a ring of 17 counters (about 140 bytes per key whatever
 * the limit).
 *
 * <p>A bucket counts until every request it may hold has left the window, so a decision counts
 * every admitted request in {@code (t - W, t]} and perhaps some of {@code (t - W - g + 1, t - W]}:
 * it never admits more than the limit in any window (no over-admission), and it denies a request
 * only when the exact log would deny it with the window {@code g - 1} ns longer; its retry-after is
 * the exact log's at most {@code g - 1} ns later. Buckets are laid from each key's first request,
 * and stay on that grid however long the key idles (below 2^51 ns: a longer gap lays them again
 * from the request that ends it); every comparison is a difference, so readings may wrap.
 */
final class BucketedRateLimiter
    extends KeyedDecider<BucketedRateLimiter.Counters, Void, RateDecision> implements RateLimiter {
  /** Sub-windows per window. */
  static final int BUCKETS = 16;

  private final RateLimitConfig config;
  private final int limit;
  private final long width;

  BucketedRateLimiter(RateLimitConfig config, long maximumKeys) {
    super(config.settings(), maximumKeys, k -> new Counters());
    this.config = config;
    this.limit = config.limit();
    this.width = bucketWidth(config.windowNanos());
  }

  /** The sub-window {@code ceil(W / 16)}. */
  static long bucketWidth(long windowNanos) {
    return windowNanos / BUCKETS + (windowNanos % BUCKETS == 0 ? 0 : 1);
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
  RateDecision decideLocked(Counters c, Void unused, long one, long timeNanos) {
    long t = c.advanceTo(timeNanos);
    c.roll(t, width);
    long reach = window + width - 1;
    int held = c.held(t, width, reach);
    boolean allowed = held < limit;
    if (allowed) {
      c.counts[c.newest]++;
      held++;
    }
    int remaining = limit - held;
    Duration retryAfter =
        remaining > 0
            ? Duration.ZERO
            : Duration.ofNanos(c.freeAt(t, width, reach, held - limit + 1) - t);
    trackDenial(c, !allowed, t);
    return new RateDecision(allowed, remaining, limit, retryAfter);
  }

  @Override
  public RateLimitConfig config() {
    return config;
  }

  /**
   * A ring of {@code BUCKETS + 1} counters, {@link #newest} the bucket starting at {@link
   * #newestStart}, each older one {@code g} earlier. Guarded by its monitor.
   */
  static final class Counters extends MonotonicKeyState {
    final int[] counts = new int[BUCKETS + 1];
    int newest;
    long newestStart;
    boolean started;

    /**
     * A gap from the newest bucket's start after which the grid starts again at the decision's
     * time: 2^51 ns (26 days), where the Redis twin's differences stop being exact.
     */
    static final long REALIGN_AFTER = 1L << 51;

    /** Moves the newest bucket to the one holding {@code t}, clearing the buckets it passes. */
    void roll(long t, long width) {
      if (!started) {
        started = true;
        newestStart = t;
        return;
      }
      long steps = (t - newestStart) / width;
      if (steps == 0) {
        return;
      }
      if (t - newestStart >= REALIGN_AFTER) {
        java.util.Arrays.fill(counts, 0);
        newest = 0;
        newestStart = t;
        return;
      }
      if (steps >= counts.length) {
        // every bucket has left; the grid stays where the first request laid it, so decisions
        // this state does not see (denials a Redis client answers itself) cannot move it
        java.util.Arrays.fill(counts, 0);
        newest = 0;
      } else {
        for (long i = steps; i > 0; i--) {
          newest = newest + 1 == counts.length ? 0 : newest + 1;
          counts[newest] = 0;
        }
      }
      newestStart += steps * width;
    }

    /** Requests in buckets that may still hold one in the window ending at {@code t}. */
    int held(long t, long width, long reach) {
      int held = 0;
      for (int i = 0; i < counts.length; i++) {
        if (t - (newestStart - i * width) < reach) {
          held += counts[slot(i)];
        }
      }
      return held;
    }

    /**
     * When enough of the oldest counted buckets have surely left for {@code excess} fewer requests.
     */
    long freeAt(long t, long width, long reach, int excess) {
      int freed = 0;
      for (int i = counts.length - 1; i >= 0; i--) {
        long start = newestStart - i * width;
        if (t - start < reach) {
          freed += counts[slot(i)];
          if (freed >= excess) {
            return start + reach;
          }
        }
      }
      throw new IllegalStateException(
          "the counted buckets hold fewer than " + excess + " requests");
    }

    private int slot(int back) {
      int s = newest - back;
      return s < 0 ? s + counts.length : s;
    }
  }
}
