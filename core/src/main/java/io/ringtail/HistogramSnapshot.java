package io.ringtail;

import static io.ringtail.internal.Checks.requirePercentile;

import io.ringtail.internal.Checks;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The in-process {@link WindowSnapshot}: exact count, sum, min and max beside the counts of an
 * HdrHistogram of the same samples.
 *
 * <p>It keeps only the histogram slots between its min and max, in HdrHistogram's layout, and
 * answers percentiles with one scan over them, with HdrHistogram's nearest-rank semantics; an
 * HdrHistogram {@link Histogram} is built from them only when one is asked for
 * ({@link #histogram()}, {@link #merge}, {@link #toByteArray()}). A snapshot of a latency window
 * therefore costs a few kilobytes and a few microseconds, whatever the samples.
 *
 * <p>Immutable and thread-safe. Snapshots {@linkplain #merge(HistogramSnapshot) merge} (windows of
 * several threads, processes or hosts into one) and {@linkplain #toByteArray() serialise} with
 * HdrHistogram's compressed encoding (a few hundred bytes for a typical latency window), so a
 * fleet can ship them to one place and aggregate.
 */
public final class HistogramSnapshot implements WindowSnapshot {
  private static final int MAGIC = 0x52545331; // "RTS1"
  private static final long[] NO_COUNTS = new long[0];

  private final BucketLayout layout;
  /** Slot of {@code counts[0]}. */
  private final int offset;
  private final long[] counts;
  private final long count;
  private final long sum;
  private final long min;
  private final long max;
  private final long rejected;
  private final long startNanos;
  private final long endNanos;
  /** Null when the snapshot carries no totals (decoded, or merged with one that has none). */
  private final WindowTotals totals;

  /** Takes ownership of {@code counts}: slots {@code offset ..}, all between min's and max's. */
  HistogramSnapshot(BucketLayout layout, int offset, long[] counts, long sum, long min, long max,
      long rejected, long startNanos, long endNanos, WindowTotals totals) {
    this.layout = layout;
    this.offset = offset;
    this.counts = counts;
    long n = 0;
    for (long c : counts) {
      n += c;
    }
    this.count = n;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.rejected = rejected;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
    this.totals = totals;
  }

  /** An empty snapshot. */
  static HistogramSnapshot empty(BucketLayout layout, long rejected, long startNanos, long endNanos,
      WindowTotals totals) {
    return new HistogramSnapshot(layout, 0, NO_COUNTS, 0, Long.MAX_VALUE, Long.MIN_VALUE, rejected,
        startNanos, endNanos, totals);
  }

  /** Slot of {@code counts()[0]}. */
  int offset() {
    return offset;
  }

  /** The counts from {@link #offset()} on; the caller must not change them. */
  long[] counts() {
    return counts;
  }

  private static HistogramSnapshot of(Histogram histogram, long sum, long min, long max,
      long rejected, long startNanos, long endNanos, WindowTotals totals) {
    BucketLayout layout = BucketLayout.of(histogram.getLowestDiscernibleValue(),
        histogram.getHighestTrackableValue(), histogram.getNumberOfSignificantValueDigits());
    if (histogram.getTotalCount() == 0) {
      return empty(layout, rejected, startNanos, endNanos, totals);
    }
    int first = layout.indexOf(min);
    long[] counts = new long[layout.indexOf(max) - first + 1];
    for (HistogramIterationValue v : histogram.recordedValues()) {
      counts[layout.indexOf(v.getValueIteratedTo()) - first] += v.getCountAtValueIteratedTo();
    }
    return new HistogramSnapshot(layout, first, counts, sum, min, max, rejected, startNanos, endNanos,
        totals);
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long sum() {
    return sum;
  }

  @Override
  public long rejected() {
    return rejected;
  }

  @Override
  public double min() {
    return isEmpty() ? Double.NaN : min;
  }

  @Override
  public double max() {
    return isEmpty() ? Double.NaN : max;
  }

  /**
   * Nearest rank as HdrHistogram computes it: the {@code ceil(p/100 * count)}-th smallest sample,
   * reported as the highest value of its histogram slot, then kept within the exact min and max.
   */
  @Override
  public double valueAtPercentile(double percentile) {
    requirePercentile(percentile);
    if (isEmpty()) {
      return Double.NaN;
    }
    if (percentile == 0.0) {
      return min;
    }
    double requested = Math.nextAfter(percentile, Double.NEGATIVE_INFINITY);
    long rank = Math.max(1, (long) Math.ceil(requested / 100.0 * count));
    long seen = 0;
    int i = 0;
    while (i < counts.length - 1) {
      seen += counts[i];
      if (seen >= rank) {
        break;
      }
      i++;
    }
    long highestInSlot = layout.valueAt(offset + i + 1) - 1;
    return Math.max(min, Math.min(max, highestInSlot));
  }

  /** Counted directly from the histogram slots in one pass. */
  @Override
  public double fractionAbove(long value) {
    if (isEmpty()) {
      return Double.NaN;
    }
    if (value >= max) {
      return 0.0;
    }
    if (value < min) {
      return 1.0;
    }
    long atOrBelow = 0;
    for (int i = 0, last = layout.indexOf(value) - offset; i <= last; i++) {
      atOrBelow += counts[i];
    }
    return (double) (count - atOrBelow) / count;
  }

  /** The window's totals as of this snapshot; empty for a decoded snapshot. */
  @Override
  public Optional<WindowTotals> totals() {
    return Optional.ofNullable(totals);
  }

  @Override
  public long startNanos() {
    return startNanos;
  }

  @Override
  public long endNanos() {
    return endNanos;
  }

  /** An HdrHistogram of the samples, for HdrHistogram's own iteration and output. */
  public Histogram histogram() {
    Histogram histogram = layout.newHistogram();
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] != 0) {
        histogram.recordValueWithCount(layout.valueAt(offset + i), counts[i]);
      }
    }
    return histogram;
  }

  /**
   * The union of this snapshot and another: counts, sums and rejected counts add, min and max
   * combine, the interval spans both, and totals add when both carry them. The result resolves
   * values at this snapshot's precision and grows its range to fit the other's values.
   */
  public HistogramSnapshot merge(HistogramSnapshot other) {
    Checks.requireNonNull("other", other);
    if (layout.sharesSlotsWith(other.layout)) {
      return addCounts(other);
    }
    Histogram merged = histogram();
    merged.setAutoResize(true);
    merged.add(other.histogram());
    return of(merged, sum + other.sum, Math.min(min, other.min),
        Math.max(max, other.max), rejected + other.rejected,
        Math.min(startNanos, other.startNanos), Math.max(endNanos, other.endNanos),
        totals == null || other.totals == null ? null : totals.plus(other.totals));
  }

  /** {@link #merge} of two snapshots whose slots coincide: their count arrays add slot by slot. */
  private HistogramSnapshot addCounts(HistogramSnapshot other) {
    long mergedSum = sum + other.sum;
    long mergedRejected = rejected + other.rejected;
    long start = Math.min(startNanos, other.startNanos);
    long end = Math.max(endNanos, other.endNanos);
    WindowTotals mergedTotals =
        totals == null || other.totals == null ? null : totals.plus(other.totals);
    BucketLayout merged = layout;
    if (other.layout.highestTrackableValue() > layout.highestTrackableValue()) {
      merged = BucketLayout.of(layout.lowestDiscernibleValue(), other.layout.highestTrackableValue(),
          layout.significantDigits());
    }
    if (other.isEmpty() || isEmpty()) {
      HistogramSnapshot only = isEmpty() ? other : this;
      if (only.isEmpty()) {
        return empty(merged, mergedRejected, start, end, mergedTotals);
      }
      return new HistogramSnapshot(merged, only.offset, only.counts, mergedSum, only.min, only.max,
          mergedRejected, start, end, mergedTotals);
    }
    int first = Math.min(offset, other.offset);
    int last = Math.max(offset + counts.length, other.offset + other.counts.length);
    long[] sums = new long[last - first];
    System.arraycopy(counts, 0, sums, offset - first, counts.length);
    long[] theirs = other.counts;
    for (int i = 0, at = other.offset - first; i < theirs.length; i++) {
      sums[at + i] += theirs[i];
    }
    return new HistogramSnapshot(merged, first, sums, mergedSum, Math.min(min, other.min),
        Math.max(max, other.max), mergedRejected, start, end, mergedTotals);
  }

  /** This snapshot as bytes: a small header and HdrHistogram's compressed encoding (without totals). */
  public byte[] toByteArray() {
    Histogram histogram = histogram();
    ByteBuffer encoded = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int histogramBytes = histogram.encodeIntoCompressedByteBuffer(encoded);
    ByteBuffer out = ByteBuffer.allocate(4 + 6 * Long.BYTES + histogramBytes);
    out.putInt(MAGIC).putLong(sum).putLong(min).putLong(max).putLong(rejected)
        .putLong(startNanos).putLong(endNanos);
    out.put(encoded.array(), 0, histogramBytes);
    return out.array();
  }

  /**
   * Reads a snapshot written by {@link #toByteArray()}.
   *
   * @throws IllegalArgumentException if the bytes are not such a snapshot
   */
  public static HistogramSnapshot fromByteArray(byte[] bytes) {
    Checks.requireNonNull("bytes", bytes);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (bytes.length < 4 + 6 * Long.BYTES || in.getInt() != MAGIC) {
      throw new IllegalArgumentException(
          "bytes must start with a Ringtail snapshot header, but was " + bytes.length + " bytes without one");
    }
    long sum = in.getLong();
    long min = in.getLong();
    long max = in.getLong();
    long rejected = in.getLong();
    long start = in.getLong();
    long end = in.getLong();
    try {
      Histogram histogram = Histogram.decodeFromCompressedByteBuffer(in, 0);
      return of(histogram, sum, min, max, rejected, start, end, null);
    } catch (DataFormatException | RuntimeException e) {
      throw new IllegalArgumentException(
          "bytes must hold a whole Ringtail snapshot, but was one whose histogram could not be decoded: " + e, e);
    }
  }

  @Override
  public String toString() {
    if (isEmpty()) {
      return "HistogramSnapshot[empty, rejected=" + rejected + ", interval=[" + startNanos + ", " + endNanos + "]]";
    }
    return "HistogramSnapshot[count=" + count() + ", sum=" + sum + ", mean=" + mean()
        + ", min=" + min + ", max=" + max + ", p50=" + valueAtPercentile(50)
        + ", p95=" + valueAtPercentile(95) + ", p99=" + valueAtPercentile(99)
        + ", rejected=" + rejected + ", interval=[" + startNanos + ", " + endNanos + "]]";
  }
}
