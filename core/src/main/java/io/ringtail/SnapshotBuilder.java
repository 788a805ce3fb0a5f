package io.ringtail;

import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Builds {@link HistogramSnapshot}s from the forms the windows hold their counts in: dense arrays
 * of a slot range ({@link #ofDense}, {@link #ofCounts}), sorted sparse slots ({@link #ofSorted}),
 * several sparse lists to add ({@link #ofLists}) and an HdrHistogram ({@link #ofHistogram}); each
 * keeps the dense or the sparse form, whichever is smaller, with the {@link SnapshotFields} passed
 * along unchanged. Static factories only.
 */
final class SnapshotBuilder {
  private static final long[] NO_COUNTS = new long[0];

  private SnapshotBuilder() {}

  /** An empty snapshot. */
  static HistogramSnapshot empty(
      BucketLayout layout, long rejected, long startNanos, long endNanos, WindowTotals totals) {
    return new HistogramSnapshot(
        layout,
        0,
        null,
        NO_COUNTS,
        new SnapshotFields(
            0, Long.MAX_VALUE, Long.MIN_VALUE, rejected, startNanos, endNanos, totals));
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
      BucketLayout layout, long[] a, long[] b, int first, int last, SnapshotFields fields) {
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
      return empty(
          layout, fields.rejected(), fields.startNanos(), fields.endNanos(), fields.totals());
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
    return new HistogramSnapshot(layout, first, slots, cumulative, fields);
  }

  /**
   * The snapshot of {@code n} slots with their counts, ascending and distinct, counts positive:
   * takes ownership of the arrays (their first {@code n} entries), and keeps them as they are, made
   * cumulative, unless a dense array of the same range is no larger.
   */
  static HistogramSnapshot ofSorted(
      BucketLayout layout, int[] slots, long[] counts, int n, SnapshotFields fields) {
    if (n == 0) {
      return empty(
          layout, fields.rejected(), fields.startNanos(), fields.endNanos(), fields.totals());
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
      return new HistogramSnapshot(layout, first, null, cumulative, fields);
    }
    for (int k = 0; k < n; k++) {
      running += counts[k];
      counts[k] = running;
    }
    int[] keptSlots = n == slots.length ? slots : Arrays.copyOf(slots, n);
    long[] cumulative = n == counts.length ? counts : Arrays.copyOf(counts, n);
    return new HistogramSnapshot(layout, first, keptSlots, cumulative, fields);
  }

  /**
   * The dense snapshot of {@code counts}, the counts of the slots from {@code first} on: takes
   * ownership of the array and makes it cumulative in place.
   */
  static HistogramSnapshot ofCounts(
      BucketLayout layout, int first, long[] counts, SnapshotFields fields) {
    for (int i = 1; i < counts.length; i++) {
      counts[i] += counts[i - 1];
    }
    return new HistogramSnapshot(layout, first, null, counts, fields);
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
      SnapshotFields fields) {
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
      return empty(
          layout, fields.rejected(), fields.startNanos(), fields.endNanos(), fields.totals());
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
      return ofCounts(layout, first, dense, fields);
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
    return ofSorted(layout, mergedSlots, mergedCounts, n, fields);
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

  /** The snapshot of an HdrHistogram's counts, at its precision. */
  static HistogramSnapshot ofHistogram(Histogram histogram, SnapshotFields fields) {
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
    return ofSorted(layout, slots, counts, k, fields);
  }
}
