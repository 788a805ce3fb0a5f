package io.ringtail.decision;

/**
 * What every per-key decision state shares: the retirement flag that makes eviction safe, and the
 * listener's crossing and cooldown bookkeeping. Guarded by the state's own monitor.
 */
abstract class KeyState {
  /** A pending bit: deliver the decision to the listener once the lock is released. */
  static final int NOTIFY = 1 << 1;

  /** The lowest bit a decision may use for pending actions of its own. */
  static final int FIRST_FREE_BIT = 1 << 2;

  private static final int ALARMED = 1;

  /**
   * Set, under this state's monitor, when the cache evicts it; a retired state is never decided on.
   */
  boolean retired;

  /** {@link #ALARMED} and the pending bits of the decision under way, in one byte per key. */
  private byte flags;

  private boolean notified;
  private long lastNotifiedNanos;

  final synchronized void retire() {
    retired = true;
  }

  /** Whether the key currently denies (limiters); detectors do not track it. */
  final boolean alarmed() {
    return (flags & ALARMED) != 0;
  }

  final void alarmed(boolean alarmed) {
    flags = (byte) (alarmed ? flags | ALARMED : flags & ~ALARMED);
  }

  /** Asks for {@code bits} ({@link #NOTIFY} or a decision's own) once the lock is released. */
  final void markPending(int bits) {
    flags |= (byte) bits;
  }

  /** Returns and clears the pending bits. Call under the monitor. */
  final int takePending() {
    int pending = flags & ~ALARMED;
    flags &= ALARMED;
    return pending;
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
