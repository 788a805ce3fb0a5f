package io.ringtail.micrometer;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowFailures;
import io.ringtail.WindowSnapshot;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The snapshot one window's gauges and counters (its "gauges" below) share within a scrape: a
 * window's {@link WindowSnapshot}, or any value read the same way (a service level's status).
 *
 * <p>Micrometer has no "scrape begins" callback, so a scrape is recognised by its reads: each gauge
 * of the window has an index, and a scrape reads each gauge once. A read by a gauge that has
 * already read the current snapshot therefore belongs to a new scrape, and takes a new snapshot;
 * every other read returns the current one. One scrape thus takes exactly one snapshot and all the
 * window's gauges in it agree (P95 never exceeds P99). A snapshot older than {@code maxAgeNanos}
 * (by the window's time source) is never served, so a scrape that reads only some gauges (a name
 * filter) cannot see an old one.
 *
 * <p>If the window fails to give a snapshot (a Redis window while Redis is down), the failure
 * stands for the scrape like a snapshot would: every gauge of that scrape reads NaN without asking
 * the window again, so an outage costs one failed call per scrape, not one per gauge. Failures are
 * logged by the binding's {@link WindowFailures}, as {@link io.ringtail.WindowConventions} says:
 * once per window and outage at WARNING (and again at most once per interval), naming the key.
 *
 * <p>Thread-safe: reads are serialised on this object (scrape time only, never the record path).
 * Two scrapes of the same binding that overlap in time cannot be told apart and may each read
 * gauges from two consecutive snapshots.
 */
final class ScrapeSnapshot<T> {
  private final Supplier<T> source;
  private final String name;
  private final String description;
  private final WindowFailures failures;
  private final TimeSource time;
  private final long maxAgeNanos;
  private final long[] consumed;
  private boolean taken;
  private T current;
  private long takenAt;

  /** The snapshots of {@code window}. */
  static ScrapeSnapshot<WindowSnapshot> of(
      RollingWindow window,
      int gauges,
      long maxAgeNanos,
      String name,
      String description,
      WindowFailures failures) {
    return new ScrapeSnapshot<>(
        window::snapshot, window.timeSource(), gauges, maxAgeNanos, name, description, failures);
  }

  /**
   * The values of {@code source}, read by {@code gauges} gauges, never older than {@code
   * maxAgeNanos} by {@code time}; failures logged under {@code name} as {@code description}.
   */
  ScrapeSnapshot(
      Supplier<T> source,
      TimeSource time,
      int gauges,
      long maxAgeNanos,
      String name,
      String description,
      WindowFailures failures) {
    this.source = source;
    this.name = name;
    this.description = description;
    this.failures = failures;
    this.time = time;
    this.maxAgeNanos = maxAgeNanos;
    this.consumed = new long[(gauges + 63) >>> 6];
  }

  /** The statistic of this scrape's snapshot for gauge {@code gauge}; NaN if the window failed. */
  synchronized double read(int gauge, ToDoubleFunction<T> statistic) {
    int word = gauge >>> 6;
    long bit = 1L << gauge;
    long now = time.nanoTime();
    if (!taken || (consumed[word] & bit) != 0 || now - takenAt > maxAgeNanos) {
      taken = true;
      takenAt = now;
      Arrays.fill(consumed, 0L);
      current = failures.read(name, description, time, source);
    }
    consumed[word] |= bit;
    return current == null ? Double.NaN : statistic.applyAsDouble(current);
  }
}
