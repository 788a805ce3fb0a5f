package io.ringtail.decision;

/**
 * A limiter's key state whose time never runs backwards: a decision timed before the latest one
 * already decided for the key is decided as of that latest time. Guarded by its monitor.
 */
abstract class MonotonicKeyState extends KeyState {
  /** The latest decided time; meaningful once {@link #decided}. */
  long latest;

  boolean decided;

  /**
   * The time to decide {@code timeNanos} at, recorded as the key's latest. Call under the monitor.
   */
  final long advanceTo(long timeNanos) {
    long t = decided && timeNanos - latest < 0 ? latest : timeNanos;
    latest = t;
    decided = true;
    return t;
  }
}
