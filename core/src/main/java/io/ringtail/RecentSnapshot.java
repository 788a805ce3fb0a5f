package io.ringtail;

import static io.ringtail.internal.Checks.requirePercentile;

import java.util.Optional;

/**
 * A snapshot kept for many reads: the same figures as the {@link HistogramSnapshot} it is made
 * from, with the counts held cumulatively so that a percentile is a binary search (a dozen
 * steps) rather than a scan, and nothing is allocated per read.
 *
 * <p>Immutable and thread-safe.
 */
final class RecentSnapshot implements WindowSnapshot {
  /** Start of the live bucket the snapshot was taken in. */
  final long liveStart;
  private final BucketLayout layout;
  private final int offset;
  /** {@code cumulative[i]}: samples in slots {@code offset .. offset + i}. */
  private final long[] cumulative;
  private final long count;
  private final long sum;
  private final long min;
  private final long max;
  private final long rejected;
  private final long startNanos;
  private final long endNanos;
  private final Optional<WindowTotals> totals;

  RecentSnapshot(HistogramSnapshot snapshot, BucketLayout layout, long liveStart) {
    this.liveStart = liveStart;
    this.layout = layout;
    this.offset = snapshot.offset();
    long[] counts = snapshot.counts();
    this.cumulative = new long[counts.length];
    long running = 0;
    for (int i = 0; i < counts.length; i++) {
      running += counts[i];
      cumulative[i] = running;
    }
    this.count = snapshot.count();
    this.sum = snapshot.sum();
    this.min = snapshot.isEmpty() ? Long.MAX_VALUE : (long) snapshot.min();
    this.max = snapshot.isEmpty() ? Long.MIN_VALUE : (long) snapshot.max();
    this.rejected = snapshot.rejected();
    this.startNanos = snapshot.startNanos();
    this.endNanos = snapshot.endNanos();
    this.totals = snapshot.totals();
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
    return count == 0 ? Double.NaN : min;
  }

  @Override
  public double max() {
    return count == 0 ? Double.NaN : max;
  }

  /** The same nearest rank as {@link HistogramSnapshot#valueAtPercentile}, found by bisection. */
  @Override
  public double valueAtPercentile(double percentile) {
    requirePercentile(percentile);
    if (count == 0) {
      return Double.NaN;
    }
    if (percentile == 0.0) {
      return min;
    }
    double requested = Math.nextAfter(percentile, Double.NEGATIVE_INFINITY);
    long rank = Math.max(1, (long) Math.ceil(requested / 100.0 * count));
    int low = 0;
    int high = cumulative.length - 1;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (cumulative[mid] >= rank) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    long highestInSlot = layout.valueAt(offset + low + 1) - 1;
    return Math.max(min, Math.min(max, highestInSlot));
  }

  @Override
  public double fractionAbove(long value) {
    if (count == 0) {
      return Double.NaN;
    }
    if (value >= max) {
      return 0.0;
    }
    if (value < min) {
      return 1.0;
    }
    return (double) (count - cumulative[layout.indexOf(value) - offset]) / count;
  }

  @Override
  public Optional<WindowTotals> totals() {
    return totals;
  }

  @Override
  public long startNanos() {
    return startNanos;
  }

  @Override
  public long endNanos() {
    return endNanos;
  }

  long footprintBytes() {
    return 104 + 16 + 8L * cumulative.length;
  }

  @Override
  public String toString() {
    return "RecentSnapshot[count=" + count + ", sum=" + sum + ", min=" + min() + ", max=" + max()
        + ", rejected=" + rejected + ", interval=[" + startNanos + ", " + endNanos + "]]";
  }
}
