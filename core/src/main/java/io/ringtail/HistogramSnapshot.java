package io.ringtail;

import static io.ringtail.internal.Checks.requirePercentile;

import io.ringtail.internal.Checks;
import java.util.Arrays;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * The in-process {@link WindowSnapshot}: exact count, sum, min and max beside the counts of an
 * HdrHistogram of the same samples.
 *
 * <p>It keeps the cumulative counts of its histogram slots in HdrHistogram's layout: of every slot
 * between its min and max when most of them hold samples, else of the non-empty slots beside their
 * indexes, whichever is smaller. Its memory therefore follows the slots that hold samples, not the
 * range of the values (two samples of 1 µs and 1 h take two entries), and a percentile is a binary
 * search, with HdrHistogram's nearest-rank semantics. An HdrHistogram {@link Histogram} is built
 * from them only when one is asked for ({@link #histogram()}, {@link #toByteArray()}, or {@link
 * #merge} of snapshots of different precisions).
 *
 * <p>Immutable and thread-safe. Snapshots {@linkplain #merge(HistogramSnapshot) merge} (windows of
 * several threads, processes or hosts into one) and {@linkplain #toByteArray() serialise} with
 * HdrHistogram's compressed encoding (a few hundred bytes for a typical latency window), so a fleet
 * can ship them to one place and aggregate.
 */
public final class HistogramSnapshot implements WindowSnapshot {

  private final BucketLayout layout;

  /** Slot of entry 0 when dense; unused when sparse. */
  private final int offset;

  /**
   * The slot of each entry, ascending, when sparse; null when dense (entry i is slot offset + i).
   */
  private final int[] slots;

  /** {@code cumulative[i]}: samples in entries 0 to i. */
  private final long[] cumulative;

  private final long count;
  private final long sum;
  private final long min;
  private final long max;
  private final long rejected;
  private final long startNanos;
  private final long endNanos;

  /** Null when the snapshot carries no totals (decoded, or merged with one that has none). */
  private final WindowTotals totals;

  /** Takes ownership of the arrays; see {@link #slots} and {@link #cumulative}. */
  HistogramSnapshot(
      BucketLayout layout, int offset, int[] slots, long[] cumulative, SnapshotFields fields) {
    this.layout = layout;
    this.offset = offset;
    this.slots = slots;
    this.cumulative = cumulative;
    this.count = cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
    this.sum = fields.sum();
    this.min = fields.min();
    this.max = fields.max();
    this.rejected = fields.rejected();
    this.startNanos = fields.startNanos();
    this.endNanos = fields.endNanos();
    this.totals = fields.totals();
  }

  /** The exact fields beside the counts, as built. */
  SnapshotFields fields() {
    return new SnapshotFields(sum, min, max, rejected, startNanos, endNanos, totals);
  }

  BucketLayout layout() {
    return layout;
  }

  /** Entries held: the non-empty slots when sparse, the slots from min's to max's when dense. */
  int entries() {
    return cumulative.length;
  }

  /** The slot of entry {@code i}. */
  int slotAt(int i) {
    return slots == null ? offset + i : slots[i];
  }

  /** The samples in entry {@code i}; zero only for a dense snapshot's empty slots. */
  long countAt(int i) {
    return i == 0 ? cumulative[0] : cumulative[i] - cumulative[i - 1];
  }

  /** Samples in the slots up to and including {@code slot}. */
  private long countUpTo(int slot) {
    int i;
    if (slots == null) {
      i = Math.min(slot - offset, cumulative.length - 1);
    } else {
      i = Arrays.binarySearch(slots, slot);
      if (i < 0) {
        i = -i - 2;
      }
    }
    return i < 0 ? 0 : cumulative[i];
  }

  /** Bytes this snapshot holds, as {@code footprintBytes()} counts them. */
  long footprintBytes() {
    long bytes = 88 + 16 + 8L * cumulative.length;
    return slots == null ? bytes : bytes + 16 + 4L * slots.length;
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
    long highestInSlot = layout.valueAt(slotAt(low) + 1) - 1;
    return Math.max(min, Math.min(max, highestInSlot));
  }

  /** Read from the cumulative counts: one look-up, or a binary search when sparse. */
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
    return (double) (count - countUpTo(layout.indexOf(value))) / count;
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
    for (int i = 0; i < cumulative.length; i++) {
      long c = countAt(i);
      if (c != 0) {
        histogram.recordValueWithCount(layout.valueAt(slotAt(i)), c);
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
    return SnapshotBuilder.ofHistogram(merged, fields().plus(other.fields()));
  }

  /**
   * {@link #merge} of two snapshots whose slots coincide: their counts add slot by slot, into a
   * dense array when the union of their ranges is no larger than what they hold, else by walking
   * their non-empty slots in step.
   */
  private HistogramSnapshot addCounts(HistogramSnapshot other) {
    SnapshotFields union = fields().plus(other.fields());
    BucketLayout merged = layout;
    if (other.layout.highestTrackableValue() > layout.highestTrackableValue()) {
      merged =
          BucketLayout.of(
              layout.lowestDiscernibleValue(),
              other.layout.highestTrackableValue(),
              layout.significantDigits());
    }
    if (other.isEmpty() || isEmpty()) {
      HistogramSnapshot only = isEmpty() ? other : this;
      if (only.isEmpty()) {
        return SnapshotBuilder.empty(
            merged, union.rejected(), union.startNanos(), union.endNanos(), union.totals());
      }
      return new HistogramSnapshot(merged, only.offset, only.slots, only.cumulative, union);
    }
    int first = Math.min(slotAt(0), other.slotAt(0));
    int range = Math.max(slotAt(entries() - 1), other.slotAt(other.entries() - 1)) - first + 1;
    if (SnapshotBuilder.denseFits(range, (long) entries() + other.entries())) {
      long[] sums = new long[range];
      addCountsInto(sums, first);
      other.addCountsInto(sums, first);
      return SnapshotBuilder.ofCounts(merged, first, sums, union);
    }
    int n = 0;
    for (int i = nextNonEmpty(0), j = other.nextNonEmpty(0);
        i < entries() || j < other.entries();
        n++) {
      int mine = i < entries() ? slotAt(i) : Integer.MAX_VALUE;
      int theirs = j < other.entries() ? other.slotAt(j) : Integer.MAX_VALUE;
      i = mine <= theirs ? nextNonEmpty(i + 1) : i;
      j = theirs <= mine ? other.nextNonEmpty(j + 1) : j;
    }
    int[] unionSlots = new int[n];
    long[] unionCounts = new long[n];
    for (int k = 0, i = nextNonEmpty(0), j = other.nextNonEmpty(0); k < n; k++) {
      int mine = i < entries() ? slotAt(i) : Integer.MAX_VALUE;
      int theirs = j < other.entries() ? other.slotAt(j) : Integer.MAX_VALUE;
      unionSlots[k] = Math.min(mine, theirs);
      if (mine <= theirs) {
        unionCounts[k] += countAt(i);
        i = nextNonEmpty(i + 1);
      }
      if (theirs <= mine) {
        unionCounts[k] += other.countAt(j);
        j = other.nextNonEmpty(j + 1);
      }
    }
    return SnapshotBuilder.ofSorted(merged, unionSlots, unionCounts, n, union);
  }

  /** The first entry from {@code i} on that holds samples, or {@link #entries()}. */
  private int nextNonEmpty(int i) {
    while (i < cumulative.length && countAt(i) == 0) {
      i++;
    }
    return i;
  }

  /**
   * Adds this snapshot's count of each slot into {@code target}, whose entry 0 is slot {@code
   * first}.
   */
  private void addCountsInto(long[] target, int first) {
    int n = cumulative.length;
    if (slots == null) {
      int at = offset - first;
      target[at] += cumulative[0];
      for (int i = 1; i < n; i++) {
        target[at + i] += cumulative[i] - cumulative[i - 1];
      }
      return;
    }
    target[slots[0] - first] += cumulative[0];
    for (int k = 1; k < n; k++) {
      target[slots[k] - first] += cumulative[k] - cumulative[k - 1];
    }
  }

  /**
   * This snapshot as bytes: a small header and HdrHistogram's compressed encoding (without totals).
   */
  public byte[] toByteArray() {
    return SnapshotCodec.encode(this);
  }

  /**
   * Reads a snapshot written by {@link #toByteArray()}.
   *
   * @throws IllegalArgumentException if the bytes are not such a snapshot
   */
  public static HistogramSnapshot fromByteArray(byte[] bytes) {
    return SnapshotCodec.decode(bytes);
  }

  @Override
  public String toString() {
    if (isEmpty()) {
      return "HistogramSnapshot[empty, rejected="
          + rejected
          + ", interval=["
          + startNanos
          + ", "
          + endNanos
          + "]]";
    }
    return "HistogramSnapshot[count="
        + count()
        + ", sum="
        + sum
        + ", mean="
        + mean()
        + ", min="
        + min
        + ", max="
        + max
        + ", p50="
        + valueAtPercentile(50)
        + ", p95="
        + valueAtPercentile(95)
        + ", p99="
        + valueAtPercentile(99)
        + ", rejected="
        + rejected
        + ", interval=["
        + startNanos
        + ", "
        + endNanos
        + "]]";
  }
}
