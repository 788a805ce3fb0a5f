package io.ringtail.decision;

import io.ringtail.TimeSource;
import java.time.Duration;

/**
 * The setters every keyed decision config's builder shares: window, time source, listener, listener
 * cooldown and idle expiry. {@link RateLimitConfig.Builder}, {@link ThresholdConfig.Builder} and
 * {@link SumCapConfig.Builder} extend it with their own values and {@code build()}. Not
 * thread-safe.
 *
 * @param <D> the decision type the listener observes
 * @param <B> the concrete builder, which every setter returns
 */
public abstract class DecisionConfigBuilder<D, B extends DecisionConfigBuilder<D, B>> {
  /** The shared values, unvalidated until the concrete builder builds. */
  final DecisionWindowSettings.Draft<D> common;

  DecisionConfigBuilder(DecisionWindowSettings.Draft<D> common) {
    this.common = common;
  }

  /** This builder as its concrete type. */
  abstract B self();

  /** The window length; positive. Default 60 s. */
  public B window(Duration window) {
    common.window = window;
    return self();
  }

  /** The time base: read when a call carries no time of its own. Default the system's. */
  public B timeSource(TimeSource timeSource) {
    common.timeSource = timeSource;
    return self();
  }

  /**
   * Notified once per crossing (into denial for a limiter or a cap; of the threshold for a
   * detector); {@code null} for none, the default.
   */
  public B listener(DecisionListener<? super D> listener) {
    common.listener = listener;
    return self();
  }

  /** The least time between two notifications for one key; zero or more, default the window. */
  public B listenerCooldown(Duration listenerCooldown) {
    common.listenerCooldown(listenerCooldown);
    return self();
  }

  /**
   * How long an idle key is kept; at least the window. Default: the window, or the listener
   * cooldown if a listener is set and its cooldown is longer (a forgotten key forgets its cooldown
   * too).
   */
  public B idleExpiry(Duration idleExpiry) {
    common.idleExpiry(idleExpiry);
    return self();
  }
}
