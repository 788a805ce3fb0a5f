package io.ringtail.redis;

import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * One key's numbers over a fleet histogram window, as the merger of its group summarised them at
 * its last round: what a gauge, a dashboard tile or an alert reads, for a few dozen bytes per key
 * whatever the number of processes ({@link RedisKeyedHistogramWindows#summaries()}). {@link
 * RedisKeyedHistogramWindows#snapshot(String)} reads the whole distribution instead.
 *
 * <p>Count, sum, min, max and rejected are exact over the merged samples. Percentiles are exact
 * within the window's significant digits at the percentiles the summaries carry ({@link
 * #percentiles()}, set by {@link RedisKeyedHistogramWindows.Builder#summaryPercentiles}); at any
 * other percentile this answers the value at the smallest carried percentile above it, or the max
 * above the highest: an upper bound, as coarse as the carried percentiles (and {@link
 * #fractionAbove} a conservative over-estimate). Each {@linkplain #spans() span} gives the exact
 * totals of the window's last buckets, for figures over a shorter period than the window.
 *
 * <p>The covered interval ends when the merger summarised it ({@link #endNanos()}); {@link
 * #stalenessNanos()} adds the age of that summary to the lag of what was merged. Immutable and
 * thread-safe.
 */
public final class FleetSummary implements WindowSnapshot {
  private final FleetCodec.KeySummary key;
  private final double[] percentiles;
  private final List<Span> spans;
  private final long startNanos;
  private final long endNanos;
  private final int publishers;
  private final long oldestPublicationNanos;
  private final long readAtNanos;
  private final WindowTotals totals;

  /**
   * The totals of a window's last buckets: the samples of the last {@code length} of the window,
   * live bucket included, as a window of that length in buckets of the same width holds them.
   *
   * @param length the span, a whole number of the window's buckets
   * @param count samples in the span; exact
   * @param sum their sum; exact
   * @param rejected samples rejected as out of range in the span
   */
  public record Span(Duration length, long count, long sum, long rejected) {}

  FleetSummary(
      FleetCodec.Summary group,
      FleetCodec.KeySummary key,
      long widthNanos,
      int buckets,
      long readAtNanos,
      WindowTotals totals) {
    this.key = key;
    this.percentiles = group.percentiles();
    List<Span> s = new ArrayList<>(group.spanBuckets().length);
    for (int i = 0; i < group.spanBuckets().length; i++) {
      s.add(
          new Span(
              Duration.ofNanos(group.spanBuckets()[i] * widthNanos),
              key.spans()[3 * i],
              key.spans()[3 * i + 1],
              key.spans()[3 * i + 2]));
    }
    this.spans = Collections.unmodifiableList(s);
    long live = Math.floorDiv(group.asOfNanos(), widthNanos);
    this.startNanos = (live - buckets + 1) * widthNanos;
    this.endNanos = group.asOfNanos();
    this.publishers = group.publishers();
    this.oldestPublicationNanos = group.oldestPublicationNanos();
    this.readAtNanos = readAtNanos;
    this.totals = totals;
  }

  private FleetSummary(FleetSummary s, WindowTotals totals) {
    this.key = s.key;
    this.percentiles = s.percentiles;
    this.spans = s.spans;
    this.startNanos = s.startNanos;
    this.endNanos = s.endNanos;
    this.publishers = s.publishers;
    this.oldestPublicationNanos = s.oldestPublicationNanos;
    this.readAtNanos = s.readAtNanos;
    this.totals = totals;
  }

  /** This summary with this process's totals ({@link #totals()}); null: it recorded none. */
  FleetSummary withTotals(WindowTotals totals) {
    return new FleetSummary(this, totals == null ? NONE : totals);
  }

  private static final WindowTotals NONE = new WindowTotals(0, 0, 0);

  @Override
  public long count() {
    return key.count();
  }

  @Override
  public long sum() {
    return key.sum();
  }

  @Override
  public long rejected() {
    return key.rejected();
  }

  @Override
  public double min() {
    return key.count() == 0 ? Double.NaN : key.min();
  }

  @Override
  public double max() {
    return key.count() == 0 ? Double.NaN : key.max();
  }

  /**
   * The nearest-rank value at {@code percentile} (0 to 100) within the window's precision if the
   * summaries carry it; otherwise the value at the smallest carried percentile above it, or the max
   * above the highest (an upper bound). NaN when empty.
   *
   * @throws IllegalArgumentException if percentile is outside 0..100 or NaN
   */
  @Override
  public double valueAtPercentile(double percentile) {
    Checks.requirePercentile(percentile);
    if (key.count() == 0) {
      return Double.NaN;
    }
    if (percentile == 0.0) {
      return key.min();
    }
    int best = -1;
    for (int i = 0; i < percentiles.length; i++) {
      if (percentiles[i] >= percentile && (best < 0 || percentiles[i] < percentiles[best])) {
        best = i;
      }
    }
    return best < 0 ? key.max() : key.percentileValues()[best];
  }

  /** The percentiles (0 to 100) this summary holds values at, ascending. */
  public double[] percentiles() {
    double[] p = percentiles.clone();
    Arrays.sort(p);
    return p;
  }

  /** The totals of each span the summaries carry, shortest first; empty if none. */
  public List<Span> spans() {
    return spans;
  }

  /**
   * The totals of the span of {@code length}.
   *
   * @throws IllegalArgumentException if the summaries carry no span of that length
   */
  public Span span(Duration length) {
    Checks.requireNonNull("length", length);
    for (Span s : spans) {
      if (s.length().equals(length)) {
        return s;
      }
    }
    List<Duration> carried = new ArrayList<>();
    spans.forEach(s -> carried.add(s.length()));
    throw Checks.invalid("length", "a span the summaries carry, one of " + carried, length);
  }

  /** How many processes published into the key's group within the window, as of its last merge. */
  public int publishers() {
    return publishers;
  }

  /**
   * The oldest, over the processes that published into the key's group within the window, of each
   * one's latest publication (a reading of the window's time base): every sample such a process
   * recorded before it is in this summary, except samples still buffered by an outage.
   */
  public long oldestPublicationNanos() {
    return oldestPublicationNanos;
  }

  /**
   * How far behind the fleet this summary may lag when it was read: the time from {@link
   * #oldestPublicationNanos()} to the read.
   */
  public long stalenessNanos() {
    return Math.max(0, readAtNanos - oldestPublicationNanos);
  }

  /**
   * What this process recorded into the key since it started to hold it (as {@link
   * RedisHistogramSnapshot#totals()}): zero for a process that recorded none of it, since a counter
   * that saw nothing is 0.
   */
  @Override
  public Optional<WindowTotals> totals() {
    return Optional.ofNullable(totals);
  }

  /** The first instant of the summarised window. */
  @Override
  public long startNanos() {
    return startNanos;
  }

  /** When the merger summarised the window (the window's time base). */
  @Override
  public long endNanos() {
    return endNanos;
  }

  @Override
  public String toString() {
    return "FleetSummary[count="
        + count()
        + ", sum="
        + sum()
        + ", min="
        + min()
        + ", max="
        + max()
        + ", percentiles="
        + Arrays.toString(percentiles)
        + ", spans="
        + spans
        + ", publishers="
        + publishers
        + ", staleness="
        + stalenessNanos()
        + " ns]";
  }
}
