package io.ringtail.decision;

import static io.ringtail.internal.Checks.invalid;
import static io.ringtail.internal.Checks.requireNonNegativeNanos;
import static io.ringtail.internal.Checks.requireNonNull;
import static io.ringtail.internal.Checks.requirePositiveNanos;

import io.ringtail.TimeSource;
import java.time.Duration;
import java.util.Optional;

/**
 * The settings every keyed decision config shares: window, time source, listener, listener cooldown
 * and idle expiry. Immutable and thread-safe; built from a {@link Draft}, which {@link
 * DecisionConfigBuilder} holds and each config's builder completes.
 *
 * @param <D> the decision type the listener observes
 */
final class DecisionWindowSettings<D> {
  private final long windowNanos;
  private final TimeSource timeSource;
  private final DecisionListener<? super D> listener;
  private final long listenerCooldownNanos;
  private final long idleExpiryNanos;

  private DecisionWindowSettings(
      long windowNanos,
      TimeSource timeSource,
      DecisionListener<? super D> listener,
      long listenerCooldownNanos,
      long idleExpiryNanos) {
    this.windowNanos = windowNanos;
    this.timeSource = timeSource;
    this.listener = listener;
    this.listenerCooldownNanos = listenerCooldownNanos;
    this.idleExpiryNanos = idleExpiryNanos;
  }

  Duration window() {
    return Duration.ofNanos(windowNanos);
  }

  long windowNanos() {
    return windowNanos;
  }

  TimeSource timeSource() {
    return timeSource;
  }

  Optional<DecisionListener<? super D>> listener() {
    return Optional.ofNullable(listener);
  }

  DecisionListener<? super D> listenerOrNull() {
    return listener;
  }

  Duration listenerCooldown() {
    return Duration.ofNanos(listenerCooldownNanos);
  }

  long listenerCooldownNanos() {
    return listenerCooldownNanos;
  }

  Duration idleExpiry() {
    return Duration.ofNanos(idleExpiryNanos);
  }

  long idleExpiryNanos() {
    return idleExpiryNanos;
  }

  /** A draft holding these values, for a config's {@code toBuilder()}. */
  Draft<D> toDraft() {
    Draft<D> d = new Draft<>();
    d.window = Duration.ofNanos(windowNanos);
    d.timeSource = timeSource;
    d.listener = listener;
    d.listenerCooldown(Duration.ofNanos(listenerCooldownNanos));
    d.idleExpiry(Duration.ofNanos(idleExpiryNanos));
    return d;
  }

  /** {@code "window=..."}: the window as a config's {@code toString()} shows it. */
  String windowString() {
    return "window=" + window();
  }

  /** The listener, cooldown and idle expiry as a config's {@code toString()} ends. */
  String listenerString() {
    return "listener="
        + (listener != null)
        + ", listenerCooldown="
        + listenerCooldown()
        + ", idleExpiry="
        + idleExpiry();
  }

  /**
   * The mutable, unvalidated values of a config builder. Defaults: window 60 s, the system time
   * source, no listener, cooldown and idle expiry derived in {@link #build(Runnable)}.
   */
  static final class Draft<D> {
    Duration window = Duration.ofSeconds(60);
    TimeSource timeSource = TimeSource.system();
    DecisionListener<? super D> listener;
    private Duration listenerCooldown;
    private boolean listenerCooldownSet;
    private Duration idleExpiry;
    private boolean idleExpirySet;

    /** Sets the listener cooldown; null is rejected by {@link #build}. */
    void listenerCooldown(Duration listenerCooldown) {
      this.listenerCooldown = listenerCooldown;
      this.listenerCooldownSet = true;
    }

    /** Sets the idle expiry; null is rejected by {@link #build}. */
    void idleExpiry(Duration idleExpiry) {
      this.idleExpiry = idleExpiry;
      this.idleExpirySet = true;
    }

    /** Validates the values. */
    DecisionWindowSettings<D> build() {
      return build(() -> {});
    }

    /**
     * Validates the window, then runs {@code afterWindow} (the config's own checks that its error
     * order puts there), then validates the rest. The listener cooldown defaults to the window; the
     * idle expiry to the window, or the cooldown if a listener is set and its cooldown is longer.
     */
    DecisionWindowSettings<D> build(Runnable afterWindow) {
      long windowNanos = requirePositiveNanos("window", window);
      afterWindow.run();
      requireNonNull("timeSource", timeSource);
      long cooldown =
          !listenerCooldownSet
              ? windowNanos
              : requireNonNegativeNanos("listenerCooldown", listenerCooldown);
      long idle =
          idleExpirySet
              ? requirePositiveNanos("idleExpiry", idleExpiry)
              : listener == null ? windowNanos : Math.max(windowNanos, cooldown);
      if (idle < windowNanos) {
        throw invalid("idleExpiry", "at least the window " + window, idleExpiry);
      }
      return new DecisionWindowSettings<>(windowNanos, timeSource, listener, cooldown, idle);
    }
  }
}
