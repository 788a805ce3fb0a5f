package io.ringtail.decision;

import static io.ringtail.internal.Checks.requireBetween;

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
  private final int maxEventsPerKey;
  private final DecisionWindowSettings<ThresholdDecision> settings;

  private ThresholdConfig(Builder b, DecisionWindowSettings<ThresholdDecision> settings) {
    this.threshold = b.threshold;
    this.maxEventsPerKey = b.maxEventsPerKey == 0 ? b.threshold : b.maxEventsPerKey;
    this.settings = settings;
  }

  /** A builder; {@link Builder#threshold(int)} must be set. */
  public static Builder builder() {
    return new Builder(new DecisionWindowSettings.Draft<>());
  }

  /** A builder starting from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder(settings.toDraft());
    b.threshold = threshold;
    b.maxEventsPerKey = maxEventsPerKey;
    return b;
  }

  /** Events within the window at or above which a key fires. */
  public int threshold() {
    return threshold;
  }

  /** The window {@code W}: events count while within {@code W} of the key's latest event. */
  public Duration window() {
    return settings.window();
  }

  /** {@link #window()} in nanoseconds. */
  public long windowNanos() {
    return settings.windowNanos();
  }

  /**
   * The most events kept per key (at least the threshold): a flood for one key keeps only the
   * newest this many, so memory per key stays bounded. Counts then saturate at this value; whether
   * a key fires stays exact. An event id forgotten this way is no longer recognised as a duplicate.
   */
  public int maxEventsPerKey() {
    return maxEventsPerKey;
  }

  /** The time base: read when an event carries no time of its own. */
  public TimeSource timeSource() {
    return settings.timeSource();
  }

  /** The listener notified when a key crosses the threshold, if any. */
  public Optional<DecisionListener<? super ThresholdDecision>> listener() {
    return settings.listener();
  }

  DecisionWindowSettings<ThresholdDecision> settings() {
    return settings;
  }

  /** The least time between two notifications for one key. */
  public Duration listenerCooldown() {
    return settings.listenerCooldown();
  }

  /**
   * How long a key may go without any event (on the time source) before it is forgotten; at least
   * the window. A key's events matter until {@code W} after its latest event time, so when event
   * times lag the time source by up to {@code D}, use at least {@code W + D}.
   */
  public Duration idleExpiry() {
    return settings.idleExpiry();
  }

  @Override
  public String toString() {
    return "ThresholdConfig[threshold="
        + threshold
        + ", "
        + settings.windowString()
        + ", maxEventsPerKey="
        + maxEventsPerKey
        + ", "
        + settings.listenerString()
        + "]";
  }

  /**
   * Fluent, reusable builder; {@link #build()} validates. The window, time source, listener and
   * their settings are {@link DecisionConfigBuilder}'s.
   */
  public static final class Builder extends DecisionConfigBuilder<ThresholdDecision, Builder> {
    private int threshold;
    private int maxEventsPerKey;

    private Builder(DecisionWindowSettings.Draft<ThresholdDecision> common) {
      super(common);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Events within the window at or above which a key fires, 1 to {@link #MAX_EVENTS_PER_KEY}. */
    public Builder threshold(int threshold) {
      this.threshold = threshold;
      return this;
    }

    /** The most events kept per key; at least the threshold (the default). */
    public Builder maxEventsPerKey(int maxEventsPerKey) {
      this.maxEventsPerKey = maxEventsPerKey;
      return this;
    }

    /** Validates every value and returns the immutable configuration. */
    public ThresholdConfig build() {
      requireBetween("threshold", threshold, 1, MAX_EVENTS_PER_KEY);
      DecisionWindowSettings<ThresholdDecision> settings =
          common.build(
              () -> {
                if (maxEventsPerKey != 0) {
                  requireBetween("maxEventsPerKey", maxEventsPerKey, threshold, MAX_EVENTS_PER_KEY);
                }
              });
      return new ThresholdConfig(this, settings);
    }
  }
}
