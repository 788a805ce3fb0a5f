package io.ringtail;

import io.ringtail.internal.Checks;
import java.util.Arrays;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A running sum of {@link BucketHistogram}s that buckets join and leave: a window kept elsewhere
 * (for example the merged buckets a fleet reader caches) adds each bucket as it is read and removes
 * it as it is replaced or leaves the window, and a snapshot then costs O(the slot range in use),
 * not O(the slots of every bucket held). Counts, sums and rejected counts are added and subtracted
 * exactly; min and max are kept as multisets of the buckets' min and max.
 *
 * <p>Part of the service-provider interface, with {@link BucketHistogram}; applications never need
 * it. Not thread-safe: the caller guards it.
 */
public final class BucketHistogramSum {
  private final BucketLayout layout;
  private long[] counts = new long[0];
  private int base; // the slot of counts[0]
  private long sum;
  private long rejected;
  private int buckets;
  private final TreeMap<Long, Integer> mins = new TreeMap<>();
  private final TreeMap<Long, Integer> maxes = new TreeMap<>();

  /** An empty sum of buckets of windows of {@code config}'s layout. */
  public BucketHistogramSum(WindowConfig config) {
    this.layout = BucketLayout.of(Objects.requireNonNull(config, "config"));
  }

  /**
   * Adds {@code bucket}'s samples.
   *
   * @throws IllegalArgumentException if its slots do not fit the configuration's layout
   */
  public void add(BucketHistogram bucket) {
    int n = bucket.slotCount();
    if (n > 0) {
      int last = bucket.slotAt(n - 1);
      if (last >= layout.length()) {
        throw Checks.invalid(
            "every bucket's slots", "below the configuration's " + layout.length(), last);
      }
      cover(bucket.slotAt(0), last);
      for (int i = 0; i < n; i++) {
        counts[bucket.slotAt(i) - base] += bucket.countAt(i);
      }
      mins.merge(bucket.min(), 1, Integer::sum);
      maxes.merge(bucket.max(), 1, Integer::sum);
    }
    sum += bucket.sum();
    rejected += bucket.rejected();
    buckets++;
  }

  /**
   * Removes the samples of {@code bucket}, which must have been {@linkplain #add added} and not
   * removed since.
   */
  public void remove(BucketHistogram bucket) {
    int n = bucket.slotCount();
    for (int i = 0; i < n; i++) {
      counts[bucket.slotAt(i) - base] -= bucket.countAt(i);
    }
    if (n > 0) {
      mins.computeIfPresent(bucket.min(), (k, c) -> c == 1 ? null : c - 1);
      maxes.computeIfPresent(bucket.max(), (k, c) -> c == 1 ? null : c - 1);
    }
    sum -= bucket.sum();
    rejected -= bucket.rejected();
    if (--buckets == 0) {
      counts = new long[0]; // nothing held: the range starts afresh
    }
  }

  /** The snapshot of the buckets held, covering {@code startNanos} to {@code endNanos}. */
  public HistogramSnapshot snapshot(long startNanos, long endNanos) {
    boolean none = mins.isEmpty();
    SnapshotFields fields =
        new SnapshotFields(
            sum,
            none ? Long.MAX_VALUE : mins.firstKey(),
            none ? Long.MIN_VALUE : maxes.lastKey(),
            rejected,
            startNanos,
            endNanos,
            null);
    int lo = 0;
    int hi = counts.length - 1;
    while (lo <= hi && counts[lo] == 0) {
      lo++;
    }
    while (hi >= lo && counts[hi] == 0) {
      hi--;
    }
    if (none || lo > hi) {
      return SnapshotBuilder.empty(layout, rejected, startNanos, endNanos, null);
    }
    int nonEmpty = 0;
    for (int i = lo; i <= hi; i++) {
      nonEmpty += counts[i] != 0 ? 1 : 0;
    }
    if (SnapshotBuilder.denseFits(hi - lo + 1L, nonEmpty)) {
      return SnapshotBuilder.ofCounts(
          layout, base + lo, Arrays.copyOfRange(counts, lo, hi + 1), fields);
    }
    int[] slots = new int[nonEmpty];
    long[] sparse = new long[nonEmpty];
    for (int i = lo, k = 0; i <= hi; i++) {
      if (counts[i] != 0) {
        slots[k] = base + i;
        sparse[k++] = counts[i];
      }
    }
    return SnapshotBuilder.ofSorted(layout, slots, sparse, nonEmpty, fields);
  }

  /** Grows the counts to cover slots {@code first..last}. */
  private void cover(int first, int last) {
    if (counts.length == 0) {
      base = first;
      counts = new long[last - first + 1];
      return;
    }
    int end = base + counts.length - 1;
    if (first >= base && last <= end) {
      return;
    }
    int newBase = Math.min(base, first);
    int newEnd = Math.max(end, last);
    long[] grown = new long[newEnd - newBase + 1];
    System.arraycopy(counts, 0, grown, base - newBase, counts.length);
    counts = grown;
    base = newBase;
  }
}
