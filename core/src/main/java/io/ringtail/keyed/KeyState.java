package io.ringtail.keyed;

/**
 * What every per-key decision state shares: the retirement flag that makes eviction safe, and
 * the listener's crossing and cooldown bookkeeping. Guarded by the state's own monitor.
 */
abstract class KeyState {
  /** Set, under this state's monitor, when the cache evicts it; a retired state is never decided on. */
  boolean retired;
  /** Whether the key currently denies (limiters) or fires (detectors). */
  boolean alarmed;
  private boolean notified;
  private long lastNotifiedNanos;

  final synchronized void retire() {
    retired = true;
  }

  /**
   * Whether a crossing at {@code now} should be delivered, given the cooldown; records the
   * delivery. Call under the monitor.
   */
  final boolean admitNotification(long now, long cooldownNanos) {
    if (notified && now - lastNotifiedNanos < cooldownNanos) {
      return false;
    }
    notified = true;
    lastNotifiedNanos = now;
    return true;
  }
}
