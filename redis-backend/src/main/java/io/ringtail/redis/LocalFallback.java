package io.ringtail.redis;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;

/**
 * An in-process copy of this process's samples that answers a snapshot when Redis cannot, or
 * nothing (then the outage reaches the caller). Thread-safe.
 */
final class LocalFallback {
  private final RollingWindow window;
  private final TimeSource clientTime;
  private final TimeSource localClock;
  private final WindowCounters counters;

  /**
   * @param config the in-process window's configuration, or null for none
   * @param clientTime the caller's time source, or null for the server's clock (then samples are
   *     timed locally by {@code localClock})
   */
  LocalFallback(
      WindowConfig config, TimeSource clientTime, TimeSource localClock, WindowCounters counters) {
    this.clientTime = clientTime;
    this.localClock = localClock;
    this.counters = counters;
    this.window =
        config == null
            ? null
            : RollingWindow.create(config, clientTime != null ? clientTime : localClock);
  }

  /** Keeps a sample recorded at {@code timeNanos} of the caller's time source. */
  void record(long value, long timeNanos) {
    if (window != null) {
      window.recordAt(value, clientTime != null ? timeNanos : localClock.nanoTime());
    }
  }

  /**
   * The in-process window's snapshot in place of Redis's answer (counted as degraded).
   *
   * @throws RedisUnavailableException {@code outage}, without a fallback window
   */
  WindowSnapshot snapshotFor(RedisUnavailableException outage) {
    if (window == null) {
      throw outage;
    }
    counters.degradedSnapshots.increment();
    return window.snapshot();
  }

  long footprintBytes() {
    return window == null ? 0 : window.footprintBytes();
  }
}
