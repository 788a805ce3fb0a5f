package io.ringtail.keyed;

import static io.ringtail.keyed.Checks.requireBetween;
import static io.ringtail.keyed.Checks.requireNonNegative;
import static io.ringtail.keyed.Checks.requireNonNull;
import static io.ringtail.keyed.Checks.requirePositive;

import io.ringtail.TimeSource;
import java.time.Duration;
import java.util.Optional;

/**
 * The immutable rule of a {@link RateLimiter}: at most {@link #limit()} requests per key in any
 * rolling {@link #window()}.
 *
 * <p>Built fluently; {@link Builder#build()} validates and may be called again. Immutable and
 * thread-safe. Defaults: window 60 s, the system time source, no listener, a listener cooldown
 * equal to the window, keys forgotten after idling for one window. The limit must be set.
 */
public final class RateLimitConfig {
  /** Largest limit: the log keeps one timestamp per admitted request. */
  public static final int MAX_LIMIT = 1 << 20;

  private final int limit;
  private final long windowNanos;
  private final TimeSource timeSource;
  private final DecisionListener<? super RateDecision> listener;
  private final long listenerCooldownNanos;
  private final long idleExpiryNanos;

  private RateLimitConfig(Builder b, long windowNanos, long cooldownNanos, long idleNanos) {
    this.limit = b.limit;
    this.windowNanos = windowNanos;
    this.timeSource = b.timeSource;
    this.listener = b.listener;
    this.listenerCooldownNanos = cooldownNanos;
    this.idleExpiryNanos = idleNanos;
  }

  /** A builder; {@link Builder#limit(int)} must be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.limit = limit;
    b.window = Duration.ofNanos(windowNanos);
    b.timeSource = timeSource;
    b.listener = listener;
    b.listenerCooldown = Duration.ofNanos(listenerCooldownNanos);
    b.idleExpiry = Duration.ofNanos(idleExpiryNanos);
    return b;
  }

  /** The most requests one key may have admitted in any window. */
  public int limit() {
    return limit;
  }

  /** The rolling window {@code W}. */
  public Duration window() {
    return Duration.ofNanos(windowNanos);
  }

  /** {@link #window()} in nanoseconds. */
  public long windowNanos() {
    return windowNanos;
  }

  /** The time base: read when a request carries no time of its own. */
  public TimeSource timeSource() {
    return timeSource;
  }

  /** The listener notified when a key goes from allowed to denied, if any. */
  public Optional<DecisionListener<? super RateDecision>> listener() {
    return Optional.ofNullable(listener);
  }

  DecisionListener<? super RateDecision> listenerOrNull() {
    return listener;
  }

  /** The least time between two notifications for one key. */
  public Duration listenerCooldown() {
    return Duration.ofNanos(listenerCooldownNanos);
  }

  long listenerCooldownNanos() {
    return listenerCooldownNanos;
  }

  /**
   * How long a key may go without requests before it is forgotten; at least the window. When
   * explicit times lag the time source by up to {@code D}, use at least
   * {@code W + D}: a key's history matters until {@code W} after its latest time.
   */
  public Duration idleExpiry() {
    return Duration.ofNanos(idleExpiryNanos);
  }

  @Override
  public String toString() {
    return "RateLimitConfig[limit=" + limit + ", window=" + window() + ", listener=" + (listener != null)
        + ", listenerCooldown=" + listenerCooldown() + ", idleExpiry=" + idleExpiry() + "]";
  }

  /** Fluent, reusable builder; {@link #build()} validates. */
  public static final class Builder {
    private int limit;
    private Duration window = Duration.ofSeconds(60);
    private TimeSource timeSource = TimeSource.system();
    private DecisionListener<? super RateDecision> listener;
    private Duration listenerCooldown;
    private Duration idleExpiry;

    private Builder() {}

    /** Requests per window per key; 1 to {@link RateLimitConfig#MAX_LIMIT}. */
    public Builder limit(int limit) {
      this.limit = limit;
      return this;
    }

    /** The window length; positive. */
    public Builder window(Duration window) {
      this.window = window;
      return this;
    }

    /** The time base. */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      return this;
    }

    /** Notified once per crossing into denial; {@code null} for none. */
    public Builder listener(DecisionListener<? super RateDecision> listener) {
      this.listener = listener;
      return this;
    }

    /** The least time between two notifications for one key; zero or more, default the window. */
    public Builder listenerCooldown(Duration listenerCooldown) {
      this.listenerCooldown = listenerCooldown;
      return this;
    }

    /**
     * How long an idle key is kept; at least the window. Default: the window, or the listener
     * cooldown if a listener is set and its cooldown is longer (a forgotten key forgets its
     * cooldown too).
     */
    public Builder idleExpiry(Duration idleExpiry) {
      this.idleExpiry = idleExpiry;
      return this;
    }

    /** Validates every value and returns the immutable configuration. */
    public RateLimitConfig build() {
      requireBetween("limit", limit, 1, MAX_LIMIT);
      long windowNanos = requirePositive("window", window);
      requireNonNull("timeSource", timeSource);
      long cooldown = listenerCooldown == null ? windowNanos
          : requireNonNegative("listenerCooldown", listenerCooldown);
      long idle = idleExpiry != null ? requirePositive("idleExpiry", idleExpiry)
          : listener == null ? windowNanos : Math.max(windowNanos, cooldown);
      if (idle < windowNanos) {
        throw new IllegalArgumentException("idleExpiry must be at least the window " + window
            + ", but was " + idleExpiry);
      }
      return new RateLimitConfig(this, windowNanos, cooldown, idle);
    }
  }
}
