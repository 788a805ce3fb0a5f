package io.ringtail;

import static io.ringtail.internal.Checks.requirePercentile;

import io.ringtail.internal.Checks;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

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
  private static final int MAGIC = 0x52545331; // "RTS1"
  private static final long[] NO_COUNTS = new long[0];

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
  private HistogramSnapshot(
      BucketLayout layout,
      int offset,
      int[] slots,
      long[] cumulative,
      long sum,
      long min,
      long max,
      long rejected,
      long startNanos,
      long endNanos,
      WindowTotals totals) {
    this.layout = layout;
    this.offset = offset;
    this.slots = slots;
    this.cumulative = cumulative;
    this.count = cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.rejected = rejected;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
    this.totals = totals;
  }

  /** An empty snapshot. */
  static HistogramSnapshot empty(
      BucketLayout layout, long rejected, long startNanos, long endNanos, WindowTotals totals) {
    return new HistogramSnapshot(
        layout,
        0,
        null,
        NO_COUNTS,
        0,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        rejected,
        startNanos,
        endNanos,
        totals);
  }

  /**
   * Whether {@code range} dense entries take no more memory than {@code nonEmpty} sparse ones (a
   * long each, against a long and an int each).
   */
  static boolean denseFits(long range, long nonEmpty) {
    return 2 * range <= 3 * nonEmpty;
  }

  /**
   * The snapshot of the counts {@code a[i] + b[i]} of slots {@code first..last}, all others zero
   * ({@code b} may be null): dense or sparse, whichever is smaller. Reads the range twice and
   * allocates only what the snapshot keeps, so it costs memory in proportion to the non-empty
   * slots.
   */
  static HistogramSnapshot ofDense(
      BucketLayout layout,
      long[] a,
      long[] b,
      int first,
      int last,
      long sum,
      long min,
      long max,
      long rejected,
      long startNanos,
      long endNanos,
      WindowTotals totals) {
    int range = last - first + 1;
    long nonEmpty = 0;
    if (b == null) {
      for (int i = first; i <= last; i++) {
        nonEmpty += (a[i] | -a[i]) >>> 63;
      }
    } else {
      for (int i = first; i <= last; i++) {
        long x = a[i] | b[i];
        nonEmpty += (x | -x) >>> 63;
      }
    }
    if (nonEmpty == 0) {
      return empty(layout, rejected, startNanos, endNanos, totals);
    }
    int[] slots = null;
    long[] cumulative;
    long running = 0;
    if (denseFits(range, nonEmpty)) {
      cumulative = new long[range];
      for (int i = 0; i < range; i++) {
        running += a[first + i] + (b == null ? 0 : b[first + i]);
        cumulative[i] = running;
      }
    } else {
      slots = new int[(int) nonEmpty];
      cumulative = new long[(int) nonEmpty];
      for (int i = first, k = 0; i <= last; i++) {
        long c = a[i] + (b == null ? 0 : b[i]);
        if (c != 0) {
          running += c;
          slots[k] = i;
          cumulative[k++] = running;
        }
      }
    }
    return new HistogramSnapshot(
        layout, first, slots, cumulative, sum, min, max, rejected, startNanos, endNanos, totals);
  }

  /**
   * The snapshot of {@code n} slots with their counts, ascending and distinct, counts positive:
   * takes ownership of the arrays (their first {@code n} entries), and keeps them as they are, made
   * cumulative, unless a dense array of the same range is no larger.
   */
  static HistogramSnapshot ofSorted(
      BucketLayout layout,
      int[] slots,
      long[] counts,
      int n,
      long sum,
      long min,
      long max,
      long rejected,
      long startNanos,
      long endNanos,
      WindowTotals totals) {
    if (n == 0) {
      return empty(layout, rejected, startNanos, endNanos, totals);
    }
    int first = slots[0];
    int range = slots[n - 1] - first + 1;
    long running = 0;
    if (denseFits(range, n)) {
      long[] cumulative = new long[range];
      for (int k = 0, i = 0; i < range; i++) {
        if (k < n && slots[k] == first + i) {
          running += counts[k++];
        }
        cumulative[i] = running;
      }
      return new HistogramSnapshot(
          layout, first, null, cumulative, sum, min, max, rejected, startNanos, endNanos, totals);
    }
    for (int k = 0; k < n; k++) {
      running += counts[k];
      counts[k] = running;
    }
    int[] keptSlots = n == slots.length ? slots : Arrays.copyOf(slots, n);
    long[] cumulative = n == counts.length ? counts : Arrays.copyOf(counts, n);
    return new HistogramSnapshot(
        layout,
        first,
        keptSlots,
        cumulative,
        sum,
        min,
        max,
        rejected,
        startNanos,
        endNanos,
        totals);
  }

  /**
   * The dense snapshot of {@code counts}, the counts of the slots from {@code first} on: takes
   * ownership of the array and makes it cumulative in place.
   */
  static HistogramSnapshot ofCounts(
      BucketLayout layout,
      int first,
      long[] counts,
      long sum,
      long min,
      long max,
      long rejected,
      long startNanos,
      long endNanos,
      WindowTotals totals) {
    for (int i = 1; i < counts.length; i++) {
      counts[i] += counts[i - 1];
    }
    return new HistogramSnapshot(
        layout, first, null, counts, sum, min, max, rejected, startNanos, endNanos, totals);
  }

  /**
   * The snapshot of the sum of {@code lists} sparse histograms: list {@code l} holds {@code
   * lengths[l]} slots, ascending and distinct, in {@code slots[l]}, with their positive counts in
   * {@code counts[l]}. When the lists together hold about as many entries as their range has slots
   * they add into a dense array of that range; otherwise they merge by slot (a heap of the lists),
   * so memory stays in proportion to the entries either way.
   */
  static HistogramSnapshot ofLists(
      BucketLayout layout,
      int[][] slots,
      long[][] counts,
      int[] lengths,
      int lists,
      long sum,
      long min,
      long max,
      long rejected,
      long startNanos,
      long endNanos,
      WindowTotals totals) {
    long entries = 0;
    int first = Integer.MAX_VALUE;
    int last = -1;
    for (int l = 0; l < lists; l++) {
      int n = lengths[l];
      if (n > 0) {
        entries += n;
        first = Math.min(first, slots[l][0]);
        last = Math.max(last, slots[l][n - 1]);
      }
    }
    if (entries == 0) {
      return empty(layout, rejected, startNanos, endNanos, totals);
    }
    if (denseFits(last - first + 1L, entries)) {
      long[] dense = new long[last - first + 1];
      for (int l = 0; l < lists; l++) {
        int[] s = slots[l];
        long[] c = counts[l];
        for (int k = 0; k < lengths[l]; k++) {
          dense[s[k] - first] += c[k];
        }
      }
      return ofCounts(layout, first, dense, sum, min, max, rejected, startNanos, endNanos, totals);
    }
    int[] heap = new int[lists];
    int heapSize = 0;
    for (int l = 0; l < lists; l++) {
      if (lengths[l] > 0) {
        heap[heapSize++] = l;
      }
    }
    int[] at = new int[lists];
    int[] mergedSlots = new int[(int) entries];
    long[] mergedCounts = new long[(int) entries];
    for (int h = heapSize / 2 - 1; h >= 0; h--) {
      siftDown(heap, heapSize, h, slots, at);
    }
    int n = 0;
    while (heapSize > 0) {
      int l = heap[0];
      int slot = slots[l][at[l]];
      if (n > 0 && mergedSlots[n - 1] == slot) {
        mergedCounts[n - 1] += counts[l][at[l]];
      } else {
        mergedSlots[n] = slot;
        mergedCounts[n++] = counts[l][at[l]];
      }
      if (++at[l] == lengths[l]) {
        heap[0] = heap[--heapSize];
      }
      if (heapSize > 0) {
        siftDown(heap, heapSize, 0, slots, at);
      }
    }
    return ofSorted(
        layout,
        mergedSlots,
        mergedCounts,
        n,
        sum,
        min,
        max,
        rejected,
        startNanos,
        endNanos,
        totals);
  }

  /** Restores the heap of lists, ordered by their next slot, below position {@code h}. */
  private static void siftDown(int[] heap, int size, int h, int[][] slots, int[] at) {
    int l = heap[h];
    int slot = slots[l][at[l]];
    while (true) {
      int child = 2 * h + 1;
      if (child >= size) {
        break;
      }
      int cl = heap[child];
      int cs = slots[cl][at[cl]];
      if (child + 1 < size) {
        int rl = heap[child + 1];
        int rs = slots[rl][at[rl]];
        if (rs < cs) {
          child++;
          cl = rl;
          cs = rs;
        }
      }
      if (slot <= cs) {
        break;
      }
      heap[h] = cl;
      h = child;
    }
    heap[h] = l;
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

  private static HistogramSnapshot of(
      Histogram histogram,
      long sum,
      long min,
      long max,
      long rejected,
      long startNanos,
      long endNanos,
      WindowTotals totals) {
    BucketLayout layout =
        BucketLayout.of(
            histogram.getLowestDiscernibleValue(),
            histogram.getHighestTrackableValue(),
            histogram.getNumberOfSignificantValueDigits());
    int n = 0;
    for (HistogramIterationValue v : histogram.recordedValues()) {
      n++;
    }
    int[] slots = new int[n];
    long[] counts = new long[n];
    int k = 0;
    for (HistogramIterationValue v : histogram.recordedValues()) {
      int slot = layout.indexOf(v.getValueIteratedTo());
      if (k > 0 && slots[k - 1] == slot) {
        counts[k - 1] += v.getCountAtValueIteratedTo();
      } else {
        slots[k] = slot;
        counts[k++] = v.getCountAtValueIteratedTo();
      }
    }
    return ofSorted(
        layout, slots, counts, k, sum, min, max, rejected, startNanos, endNanos, totals);
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
    return of(
        merged,
        sum + other.sum,
        Math.min(min, other.min),
        Math.max(max, other.max),
        rejected + other.rejected,
        Math.min(startNanos, other.startNanos),
        Math.max(endNanos, other.endNanos),
        totals == null || other.totals == null ? null : totals.plus(other.totals));
  }

  /**
   * {@link #merge} of two snapshots whose slots coincide: their counts add slot by slot, into a
   * dense array when the union of their ranges is no larger than what they hold, else by walking
   * their non-empty slots in step.
   */
  private HistogramSnapshot addCounts(HistogramSnapshot other) {
    long mergedSum = sum + other.sum;
    long mergedRejected = rejected + other.rejected;
    long start = Math.min(startNanos, other.startNanos);
    long end = Math.max(endNanos, other.endNanos);
    WindowTotals mergedTotals =
        totals == null || other.totals == null ? null : totals.plus(other.totals);
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
        return empty(merged, mergedRejected, start, end, mergedTotals);
      }
      return new HistogramSnapshot(
          merged,
          only.offset,
          only.slots,
          only.cumulative,
          mergedSum,
          only.min,
          only.max,
          mergedRejected,
          start,
          end,
          mergedTotals);
    }
    long mergedMin = Math.min(min, other.min);
    long mergedMax = Math.max(max, other.max);
    int first = Math.min(slotAt(0), other.slotAt(0));
    int range = Math.max(slotAt(entries() - 1), other.slotAt(other.entries() - 1)) - first + 1;
    if (denseFits(range, (long) entries() + other.entries())) {
      long[] sums = new long[range];
      addCountsInto(sums, first);
      other.addCountsInto(sums, first);
      return ofCounts(
          merged,
          first,
          sums,
          mergedSum,
          mergedMin,
          mergedMax,
          mergedRejected,
          start,
          end,
          mergedTotals);
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
    return ofSorted(
        merged,
        unionSlots,
        unionCounts,
        n,
        mergedSum,
        mergedMin,
        mergedMax,
        mergedRejected,
        start,
        end,
        mergedTotals);
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
    Histogram histogram = histogram();
    ByteBuffer encoded = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int histogramBytes = histogram.encodeIntoCompressedByteBuffer(encoded);
    ByteBuffer out = ByteBuffer.allocate(4 + 6 * Long.BYTES + histogramBytes);
    out.putInt(MAGIC)
        .putLong(sum)
        .putLong(min)
        .putLong(max)
        .putLong(rejected)
        .putLong(startNanos)
        .putLong(endNanos);
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
          "bytes must start with a Ringtail snapshot header, but was "
              + bytes.length
              + " bytes without one");
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
          "bytes must hold a whole Ringtail snapshot, but was one whose histogram could not be decoded: "
              + e,
          e);
    }
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
