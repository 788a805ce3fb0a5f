package io.ringtail;

import static io.ringtail.Requirements.requirePercentile;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The in-process {@link WindowSnapshot}: exact count, sum, min and max beside an HdrHistogram
 * of the same samples.
 *
 * <p>Immutable and thread-safe. Snapshots {@linkplain #merge(HistogramSnapshot) merge} (windows of
 * several threads, processes or hosts into one) and {@linkplain #toByteArray() serialise} with
 * HdrHistogram's compressed encoding (a few hundred bytes for a typical latency window), so a
 * fleet can ship them to one place and aggregate.
 */
public final class HistogramSnapshot implements WindowSnapshot {
  private static final int MAGIC = 0x52545331; // "RTS1"

  private final Histogram histogram;
  private final long sum;
  private final long min;
  private final long max;
  private final long rejected;
  private final long startNanos;
  private final long endNanos;

  HistogramSnapshot(Histogram histogram, long sum, long min, long max, long rejected,
      long startNanos, long endNanos) {
    this.histogram = histogram;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.rejected = rejected;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
  }

  @Override
  public long count() {
    return histogram.getTotalCount();
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

  @Override
  public double valueAtPercentile(double percentile) {
    requirePercentile(percentile);
    if (isEmpty()) {
      return Double.NaN;
    }
    long value = histogram.getValueAtPercentile(percentile);
    return Math.max(min, Math.min(max, value));
  }

  /** Counted directly from the histogram in one pass. */
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
    long atOrBelow = histogram.getCountBetweenValues(0, value);
    return (double) (count() - atOrBelow) / count();
  }

  @Override
  public long startNanos() {
    return startNanos;
  }

  @Override
  public long endNanos() {
    return endNanos;
  }

  /** A copy of the histogram behind this snapshot, for HdrHistogram's own iteration and output. */
  public Histogram histogram() {
    return histogram.copy();
  }

  /**
   * The union of this snapshot and another: counts, sums and rejected counts add, min and max
   * combine, and the interval spans both. The result resolves values at this snapshot's
   * precision and grows its range to fit the other's values.
   */
  public HistogramSnapshot merge(HistogramSnapshot other) {
    Objects.requireNonNull(other, "other");
    Histogram merged = histogram.copy();
    merged.setAutoResize(true);
    merged.add(other.histogram);
    return new HistogramSnapshot(merged, sum + other.sum, Math.min(min, other.min),
        Math.max(max, other.max), rejected + other.rejected,
        Math.min(startNanos, other.startNanos), Math.max(endNanos, other.endNanos));
  }

  /** This snapshot as bytes: a small header and HdrHistogram's compressed encoding. */
  public byte[] toByteArray() {
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
    Objects.requireNonNull(bytes, "bytes");
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (bytes.length < 4 + 6 * Long.BYTES || in.getInt() != MAGIC) {
      throw new IllegalArgumentException(
          "bytes must start with a Ringtail snapshot header, but " + bytes.length + " bytes did not");
    }
    long sum = in.getLong();
    long min = in.getLong();
    long max = in.getLong();
    long rejected = in.getLong();
    long start = in.getLong();
    long end = in.getLong();
    try {
      Histogram histogram = Histogram.decodeFromCompressedByteBuffer(in, 0);
      return new HistogramSnapshot(histogram, sum, min, max, rejected, start, end);
    } catch (DataFormatException | RuntimeException e) {
      throw new IllegalArgumentException(
          "bytes must hold a whole Ringtail snapshot, but the histogram could not be decoded: " + e, e);
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
