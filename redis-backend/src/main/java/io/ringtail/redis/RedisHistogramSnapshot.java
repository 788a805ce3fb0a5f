package io.ringtail.redis;

import io.ringtail.HistogramSnapshot;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import java.util.Optional;

/**
 * What a {@link RedisHistogramWindow} held for the whole fleet at one instant: the merged histogram
 * of every process's published samples, and how fresh that view is.
 *
 * <p>Count, sum, min and max are exact over the published samples; percentiles are within the
 * window's significant digits, as for the in-process window. Immutable and thread-safe.
 */
public final class RedisHistogramSnapshot implements WindowSnapshot {
  private final HistogramSnapshot merged;
  private final int publishers;
  private final long oldestPublicationNanos;
  private final WindowTotals totals;

  RedisHistogramSnapshot(HistogramSnapshot merged, int publishers, long oldestPublicationNanos) {
    this(merged, publishers, oldestPublicationNanos, null);
  }

  private RedisHistogramSnapshot(
      HistogramSnapshot merged, int publishers, long oldestPublicationNanos, WindowTotals totals) {
    this.merged = merged;
    this.publishers = publishers;
    this.oldestPublicationNanos = oldestPublicationNanos;
    this.totals = totals;
  }

  /** This snapshot with this process's totals ({@link #totals()}). */
  RedisHistogramSnapshot withTotals(WindowTotals totals) {
    return new RedisHistogramSnapshot(merged, publishers, oldestPublicationNanos, totals);
  }

  /**
   * What this process recorded into the window since it built it (drained by its publication
   * rounds, so at most half a publish interval behind its records), not the fleet's: summed over
   * the fleet's processes, as a monitoring system sums per-process counters, it counts each sample
   * once. Empty for a process that recorded nothing.
   */
  @Override
  public Optional<WindowTotals> totals() {
    return Optional.ofNullable(totals);
  }

  /** The merged histogram itself (to merge further, serialise, or read with HdrHistogram). */
  public HistogramSnapshot histogram() {
    return merged;
  }

  /** How many processes published into the buckets this snapshot covers. */
  public int publishers() {
    return publishers;
  }

  /**
   * How fresh the fleet view is: the oldest, over the processes that published into the covered
   * buckets, of each one's latest publication (a reading of the window's time base). Every sample
   * such a process recorded before this instant is in the snapshot, except samples still buffered
   * by an outage. A process that stopped recording (or died) holds it back until its buckets leave
   * the window. {@link #endNanos()} when nothing was published.
   */
  public long oldestPublicationNanos() {
    return oldestPublicationNanos;
  }

  /**
   * {@code endNanos() - oldestPublicationNanos()}: how far behind the fleet view may lag, at most.
   */
  public long stalenessNanos() {
    return Math.max(0, endNanos() - oldestPublicationNanos);
  }

  @Override
  public long count() {
    return merged.count();
  }

  @Override
  public long sum() {
    return merged.sum();
  }

  @Override
  public long rejected() {
    return merged.rejected();
  }

  @Override
  public double min() {
    return merged.min();
  }

  @Override
  public double max() {
    return merged.max();
  }

  @Override
  public double valueAtPercentile(double percentile) {
    return merged.valueAtPercentile(percentile);
  }

  @Override
  public double fractionAbove(long value) {
    return merged.fractionAbove(value);
  }

  @Override
  public long startNanos() {
    return merged.startNanos();
  }

  @Override
  public long endNanos() {
    return merged.endNanos();
  }

  @Override
  public String toString() {
    return "RedisHistogramSnapshot["
        + merged
        + ", publishers="
        + publishers
        + ", staleness="
        + stalenessNanos()
        + " ns]";
  }
}
