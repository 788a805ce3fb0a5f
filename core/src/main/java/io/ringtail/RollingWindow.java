package io.ringtail;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.Optional;

/**
 * A rolling window over a stream of non-negative {@code long} samples (typically latencies in
 * nanoseconds): what happened in the last {@link WindowConfig#length() length}.
 *
 * <h2>Window definition</h2>
 *
 * Time is divided into buckets of {@code width = length / buckets}, numbered by the absolute index
 * {@code floor(t / width)} of the window's {@link TimeSource} reading {@code t}. A sample is
 * recorded into exactly one bucket: the one its time falls in. A snapshot taken at time {@code now}
 * covers the live bucket (the one {@code now} falls in, so far) and the {@code buckets - 1}
 * complete buckets before it: every sample timed in {@code [startNanos, endNanos]} with {@code
 * startNanos = (floor(now / width) - buckets + 1) * width} and {@code endNanos = now}. It therefore
 * spans between {@code length - width} and {@code length}, and is never more than one bucket stale.
 * Count, sum, mean, min, max, percentiles and the rejected count all come from this one interval.
 *
 * <h2>Percentile definition</h2>
 *
 * {@link WindowSnapshot#valueAtPercentile(double) valueAtPercentile(p)} is the nearest rank: the
 * {@code ceil(p / 100 * count)}-th smallest sample (the smallest for {@code p = 0}), reported
 * within the configured {@link WindowConfig#significantDigits() precision} and never outside the
 * exact min and max. Count, sum, min and max are exact.
 *
 * <h2>Thread safety and cost</h2>
 *
 * Any number of threads may record while others take snapshots. Recording takes no lock, allocates
 * nothing and touches one of several padded stripes (starting with {@link WindowConfig#stripes()});
 * a thread that meets another on its stripe moves to another, and a window whose threads keep
 * colliding adds stripes, up to the processor count, so recording threads do not contend on one
 * shared atomic. Rotation is lazy (no background thread): the first record or snapshot in a new
 * bucket seals the previous one, in time independent of how long the window was idle. No sample is
 * lost or counted twice across a rotation; a writer racing a rotation may land its sample in the
 * next bucket.
 *
 * <h2>Bad samples</h2>
 *
 * A negative sample or one above {@link WindowConfig#highestTrackableValue()} is never thrown on:
 * it is counted as rejected (not clamped) in the bucket of its time, and {@link
 * WindowSnapshot#rejected()} reports it. So is a sample that would take the window's sum past
 * {@link Long#MAX_VALUE} (possible only with a very high highest trackable value): the sum is never
 * wrong.
 */
public interface RollingWindow {

  /** An in-process window reading {@link TimeSource#system()}. */
  static RollingWindow create(WindowConfig config) {
    return create(config, TimeSource.system());
  }

  /** An in-process window reading the given time source. */
  static RollingWindow create(WindowConfig config, TimeSource timeSource) {
    return new StripedWindow(
        Checks.requireNonNull("config", config), Checks.requireNonNull("timeSource", timeSource));
  }

  /**
   * An in-process window whose memory grows with what it holds rather than with its value range: a
   * few hundred bytes for a window of a few samples, where {@link #create} costs its dense arrays
   * from the start. Same definitions, precision and snapshot; records take a short per-window lock,
   * so prefer {@link #create} for a window many threads record into. The window to keep per key
   * when there are many keys.
   */
  static RollingWindow createCompact(WindowConfig config, TimeSource timeSource) {
    return CompactWindow.create(
        Checks.requireNonNull("config", config), Checks.requireNonNull("timeSource", timeSource));
  }

  /** Records a sample at the time source's current reading. */
  void record(long value);

  /**
   * Records a sample at a reading the caller already took from this window's time source, saving a
   * clock read (about as costly as the record itself). A reading more than one bucket width ahead
   * of the time source is not trusted: the sample is rejected and counted, and the window stays
   * where it is. Only a reading that would move the window into a later bucket is checked, so the
   * ordinary record reads no clock.
   */
  void recordAt(long value, long timeNanos);

  /**
   * Records the time elapsed since {@code startNanos}, a reading of this window's time source, with
   * one clock read: {@code long start = ts.nanoTime(); work(); window.recordElapsedSince(start);}
   */
  default void recordElapsedSince(long startNanos) {
    long now = timeSource().nanoTime();
    recordAt(now - startNanos, now);
  }

  /** An immutable view of the window as of the time source's current reading. */
  WindowSnapshot snapshot();

  /**
   * A snapshot for reading on a request path (adaptive timeouts, hedging, load shedding): the
   * window as it was at the first call after its latest rotation, shared by every call until the
   * next one. It lags {@link #snapshot()} by at most one bucket width while the window records
   * (rotation happens on the first record or snapshot of each bucket), and by the idle time when
   * nothing records or snapshots. The striped window ({@link #create}) answers it with a volatile
   * read and allocates nothing per call, and its percentile read is a binary search; the compact
   * window and this default take a fresh snapshot. Prefer {@link #snapshot()} for anything read
   * once (a scrape, an alert evaluation) or that must be current.
   */
  default WindowSnapshot recentSnapshot() {
    return snapshot();
  }

  /**
   * The distribution of every sample since the window was created, as of now: what aggregatable
   * histogram exports (a Prometheus histogram, an OpenTelemetry exponential histogram) read, so a
   * metrics backend can {@code rate()} it and add it across processes. Empty unless the window was
   * created with {@link WindowConfig.Builder#cumulativeHistogram(boolean)
   * cumulativeHistogram(true)} (the in-process windows; a Redis window keeps none, its distribution
   * is already the fleet's).
   */
  default Optional<CumulativeHistogram> cumulativeHistogram() {
    return Optional.empty();
  }

  /** How far back a snapshot reaches (see the window definition above). */
  Duration length();

  /** The time source the window reads. */
  TimeSource timeSource();

  /** Bytes this window holds in this process's heap, as currently allocated. */
  long footprintBytes();
}
