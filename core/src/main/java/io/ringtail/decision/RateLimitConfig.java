package io.ringtail.decision;

import static io.ringtail.internal.Checks.requireBetween;

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
  private final DecisionWindowSettings<RateDecision> settings;

  private RateLimitConfig(int limit, DecisionWindowSettings<RateDecision> settings) {
    this.limit = limit;
    this.settings = settings;
  }

  /** A builder; {@link Builder#limit(int)} must be set. */
  public static Builder builder() {
    return new Builder(new DecisionWindowSettings.Draft<>());
  }

  /** A builder starting from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder(settings.toDraft());
    b.limit = limit;
    return b;
  }

  /** The most requests one key may have admitted in any window. */
  public int limit() {
    return limit;
  }

  /** The rolling window {@code W}. */
  public Duration window() {
    return settings.window();
  }

  /** {@link #window()} in nanoseconds. */
  public long windowNanos() {
    return settings.windowNanos();
  }

  /** The time base: read when a request carries no time of its own. */
  public TimeSource timeSource() {
    return settings.timeSource();
  }

  /** The listener notified when a key goes from allowed to denied, if any. */
  public Optional<DecisionListener<? super RateDecision>> listener() {
    return settings.listener();
  }

  DecisionWindowSettings<RateDecision> settings() {
    return settings;
  }

  /** The least time between two notifications for one key. */
  public Duration listenerCooldown() {
    return settings.listenerCooldown();
  }

  /**
   * How long a key may go without requests before it is forgotten; at least the window. When
   * explicit times lag the time source by up to {@code D}, use at least {@code W + D}: a key's
   * history matters until {@code W} after its latest time.
   */
  public Duration idleExpiry() {
    return settings.idleExpiry();
  }

  @Override
  public String toString() {
    return "RateLimitConfig[limit="
        + limit
        + ", "
        + settings.windowString()
        + ", "
        + settings.listenerString()
        + "]";
  }

  /**
   * Fluent, reusable builder; {@link #build()} validates. The window, time source, listener and
   * their settings are {@link DecisionConfigBuilder}'s.
   */
  public static final class Builder extends DecisionConfigBuilder<RateDecision, Builder> {
    private int limit;

    private Builder(DecisionWindowSettings.Draft<RateDecision> common) {
      super(common);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Requests per window per key; 1 to {@link RateLimitConfig#MAX_LIMIT}. */
    public Builder limit(int limit) {
      this.limit = limit;
      return this;
    }

    /** Validates every value and returns the immutable configuration. */
    public RateLimitConfig build() {
      requireBetween("limit", limit, 1, MAX_LIMIT);
      return new RateLimitConfig(limit, common.build());
    }
  }
}
