package io.ringtail.micrometer;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import java.util.Arrays;

/**
 * The snapshot one window's gauges share within a scrape.
 *
 * <p>Micrometer has no "scrape begins" callback, so a scrape is recognised by its reads: each
 * gauge of the window has an index, and a scrape reads each gauge once. A read by a gauge that
 * has already read the current snapshot therefore belongs to a new scrape, and takes a new
 * snapshot; every other read returns the current one. One scrape thus takes exactly one
 * snapshot and all the window's gauges in it agree (P95 never exceeds P99). A snapshot older
 * than {@code maxAgeNanos} (by the window's time source) is never served, so a scrape that reads
 * only some gauges (a name filter) cannot see an old one.
 *
 * <p>Thread-safe: reads are serialised on this object (scrape time only, never the record path).
 * Two scrapes of the same binding that overlap in time cannot be told apart and may each read
 * gauges from two consecutive snapshots.
 */
final class ScrapeSnapshot {
  private final RollingWindow window;
  private final TimeSource time;
  private final long maxAgeNanos;
  private final long[] consumed;
  private WindowSnapshot current;
  private long takenAt;

  ScrapeSnapshot(RollingWindow window, int gauges, long maxAgeNanos) {
    this.window = window;
    this.time = window.timeSource();
    this.maxAgeNanos = maxAgeNanos;
    this.consumed = new long[(gauges + 63) >>> 6];
  }

  synchronized WindowSnapshot forGauge(int gauge) {
    int word = gauge >>> 6;
    long bit = 1L << gauge;
    long now = time.nanoTime();
    if (current == null || (consumed[word] & bit) != 0 || now - takenAt > maxAgeNanos) {
      current = window.snapshot();
      takenAt = now;
      Arrays.fill(consumed, 0L);
    }
    consumed[word] |= bit;
    return current;
  }

  RollingWindow window() {
    return window;
  }
}
