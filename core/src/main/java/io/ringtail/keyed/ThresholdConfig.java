package io.ringtail.keyed;

import static io.ringtail.keyed.Checks.requireBetween;
import static io.ringtail.keyed.Checks.requireNonNegative;
import static io.ringtail.keyed.Checks.requireNonNull;
import static io.ringtail.keyed.Checks.requirePositive;

import io.ringtail.TimeSource;
import java.time.Duration;
import java.util.Optional;

/**
 * The immutable rule of a {@link ThresholdDetector}: fire when at least {@link #threshold()}
 * distinct events for one key fall within {@link #window()}.
 *
 * <p>Built fluently; {@link Builder#build()} validates and may be called again. Immutable and
 * thread-safe. Defaults: window 60 s, at most {@code threshold} events kept per key, the system
 * time source, no listener, a listener cooldown equal to the window, and keys forgotten after
 * idling for one window.
 */
public final class ThresholdConfig {
  /** Largest threshold and largest number of events kept per key. */
  public static final int MAX_EVENTS_PER_KEY = 1 << 20;

  private final int threshold;
  private final long windowNanos;
  private final int maxEventsPerKey;
  private final TimeSource timeSource;
  private final DecisionListener<? super ThresholdDecision> listener;
  private final long listenerCooldownNanos;
  private final long idleExpiryNanos;

  private ThresholdConfig(Builder b, long windowNanos, long cooldownNanos, long idleNanos) {
    this.threshold = b.threshold;
    this.windowNanos = windowNanos;
    this.maxEventsPerKey = b.maxEventsPerKey == 0 ? b.threshold : b.maxEventsPerKey;
    this.timeSource = b.timeSource;
    this.listener = b.listener;
    this.listenerCooldownNanos = cooldownNanos;
    this.idleExpiryNanos = idleNanos;
  }

  /** A builder; {@link Builder#threshold(int)} must be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.threshold = threshold;
    b.window = Duration.ofNanos(windowNanos);
    b.maxEventsPerKey = maxEventsPerKey;
    b.timeSource = timeSource;
    b.listener = listener;
    b.listenerCooldown = Duration.ofNanos(listenerCooldownNanos);
    b.idleExpiry = Duration.ofNanos(idleExpiryNanos);
    return b;
  }

  /** Events within the window at or above which a key fires. */
  public int threshold() {
    return threshold;
  }

  /** The window {@code W}: events count while within {@code W} of the key's latest event. */
  public Duration window() {
    return Duration.ofNanos(windowNanos);
  }

  /** {@link #window()} in nanoseconds. */
  public long windowNanos() {
    return windowNanos;
  }

  /**
   * The most events kept per key (at least the threshold): a flood for one key keeps only the
   * newest this many, so memory per key stays bounded. Counts then saturate at this value;
   * whether a key fires stays exact. An event id forgotten this way is no longer recognised
   * as a duplicate.
   */
  public int maxEventsPerKey() {
    return maxEventsPerKey;
  }

  /** The time base: read when an event carries no time of its own. */
  public TimeSource timeSource() {
    return timeSource;
  }

  /** The listener notified when a key crosses the threshold, if any. */
  public Optional<DecisionListener<? super ThresholdDecision>> listener() {
    return Optional.ofNullable(listener);
  }

  DecisionListener<? super ThresholdDecision> listenerOrNull() {
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
   * How long a key may go without any event (on the time source) before it is forgotten; at
   * least the window. A key's events matter until {@code W} after its latest event time, so
   * when event times lag the time source by up to {@code D}, use at least {@code W + D}.
   */
  public Duration idleExpiry() {
    return Duration.ofNanos(idleExpiryNanos);
  }

  @Override
  public String toString() {
    return "ThresholdConfig[threshold=" + threshold + ", window=" + window()
        + ", maxEventsPerKey=" + maxEventsPerKey + ", listener=" + (listener != null)
        + ", listenerCooldown=" + listenerCooldown() + ", idleExpiry=" + idleExpiry() + "]";
  }

  /** Fluent, reusable builder; {@link #build()} validates. */
  public static final class Builder {
    private int threshold;
    private Duration window = Duration.ofSeconds(60);
    private int maxEventsPerKey;
    private TimeSource timeSource = TimeSource.system();
    private DecisionListener<? super ThresholdDecision> listener;
    private Duration listenerCooldown;
    private Duration idleExpiry;

    private Builder() {}

    /** Events within the window at or above which a key fires, 1 to {@link #MAX_EVENTS_PER_KEY}. */
    public Builder threshold(int threshold) {
      this.threshold = threshold;
      return this;
    }

    /** The window length; positive. */
    public Builder window(Duration window) {
      this.window = window;
      return this;
    }

    /** The most events kept per key; at least the threshold (the default). */
    public Builder maxEventsPerKey(int maxEventsPerKey) {
      this.maxEventsPerKey = maxEventsPerKey;
      return this;
    }

    /** The time base. */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      return this;
    }

    /** Notified once per crossing; {@code null} for none. */
    public Builder listener(DecisionListener<? super ThresholdDecision> listener) {
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
    public ThresholdConfig build() {
      requireBetween("threshold", threshold, 1, MAX_EVENTS_PER_KEY);
      long windowNanos = requirePositive("window", window);
      if (maxEventsPerKey != 0) {
        requireBetween("maxEventsPerKey", maxEventsPerKey, threshold, MAX_EVENTS_PER_KEY);
      }
      requireNonNull("timeSource", timeSource);
      long cooldown = listenerCooldown == null ? windowNanos
          : requireNonNegative("listenerCooldown", listenerCooldown);
      long idle = idleExpiry != null ? requirePositive("idleExpiry", idleExpiry)
          : listener == null ? windowNanos : Math.max(windowNanos, cooldown);
      if (idle < windowNanos) {
        throw new IllegalArgumentException("idleExpiry must be at least the window " + window
            + ", but was " + idleExpiry);
      }
      return new ThresholdConfig(this, windowNanos, cooldown, idle);
    }
  }
}
