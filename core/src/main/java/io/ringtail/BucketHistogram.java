package io.ringtail;

import io.ringtail.internal.Checks;
import java.util.Arrays;
import java.util.Objects;

/**
 * The samples of one bucket of a window, as a sparse histogram: the slots that saw samples
 * (ascending, in the layout of a {@link WindowConfig}'s precision and lowest discernible value)
 * with their counts, beside the exact count, sum, min, max and rejected count. What a {@link
 * BucketRecorder} hands out and what a window that keeps its buckets elsewhere (for example in
 * Redis) stores, merges and turns back into a {@link HistogramSnapshot}.
 *
 * <p>Part of the service-provider interface for such backends (see {@link BucketRecorder});
 * applications never need it.
 *
 * <p>Immutable and thread-safe.
 */
public final class BucketHistogram {
  private static final int[] NO_SLOTS = new int[0];
  private static final long[] NO_COUNTS = new long[0];

  private final long bucket;
  private final int[] slots;
  private final long[] counts;
  private final long count;
  private final long sum;
  private final long min;
  private final long max;
  private final long rejected;

  private BucketHistogram(
      long bucket,
      int[] slots,
      long[] counts,
      long count,
      long sum,
      long min,
      long max,
      long rejected) {
    this.bucket = bucket;
    this.slots = slots;
    this.counts = counts;
    this.count = count;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.rejected = rejected;
  }

  /**
   * A bucket histogram from its parts, checked: slots ascending and distinct, counts positive, min
   * and max within the slots' range when not empty.
   *
   * @param bucket absolute bucket index ({@code floor(time / bucketWidth)})
   * @param min the exact smallest sample (ignored when there is none)
   * @param max the exact largest sample (ignored when there is none)
   * @throws IllegalArgumentException if the parts do not describe a histogram
   */
  public static BucketHistogram of(
      long bucket, int[] slots, long[] counts, long sum, long min, long max, long rejected) {
    Objects.requireNonNull(slots, "slots");
    Objects.requireNonNull(counts, "counts");
    if (slots.length != counts.length) {
      throw Checks.invalid(
          "counts", "the same length as slots (" + slots.length + ")", counts.length);
    }
    if (rejected < 0) {
      throw Checks.invalid("rejected", "at least 0", rejected);
    }
    long n = 0;
    for (int i = 0; i < slots.length; i++) {
      if (slots[i] < 0 || (i > 0 && slots[i] <= slots[i - 1])) {
        throw Checks.invalid(
            "slots[" + i + "]", i == 0 ? "at least 0" : "above slots[" + (i - 1) + "]", slots[i]);
      }
      if (counts[i] <= 0) {
        throw Checks.invalid("counts[" + i + "]", "positive", counts[i]);
      }
      n += counts[i];
    }
    if (n == 0) {
      return new BucketHistogram(
          bucket, NO_SLOTS, NO_COUNTS, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE, rejected);
    }
    if (min < 0 || max < min) {
      throw min < 0
          ? Checks.invalid("min", "at least 0", min)
          : Checks.invalid("max", "at least min (" + min + ")", max);
    }
    return new BucketHistogram(bucket, slots.clone(), counts.clone(), n, sum, min, max, rejected);
  }

  /** Takes ownership of the arrays; the caller has checked them. */
  static BucketHistogram trusted(
      long bucket,
      int[] slots,
      long[] counts,
      long count,
      long sum,
      long min,
      long max,
      long rejected) {
    return new BucketHistogram(bucket, slots, counts, count, sum, min, max, rejected);
  }

  /** Absolute bucket index: {@code floor(time / bucketWidth)} in the window's time base. */
  public long bucket() {
    return bucket;
  }

  /** Samples in the bucket; exact. */
  public long count() {
    return count;
  }

  /** Sum of the samples; exact. */
  public long sum() {
    return sum;
  }

  /** The smallest sample, or {@link Long#MAX_VALUE} when empty. */
  public long min() {
    return min;
  }

  /** The largest sample, or {@link Long#MIN_VALUE} when empty. */
  public long max() {
    return max;
  }

  /** Samples rejected as out of range. */
  public long rejected() {
    return rejected;
  }

  /** Whether the bucket holds neither samples nor rejections. */
  public boolean isEmpty() {
    return count == 0 && rejected == 0;
  }

  /** How many distinct slots saw samples. */
  public int slotCount() {
    return slots.length;
  }

  /** The {@code i}-th slot that saw samples, ascending. */
  public int slotAt(int i) {
    return slots[i];
  }

  /** The count of the {@code i}-th slot. */
  public long countAt(int i) {
    return counts[i];
  }

  /**
   * This bucket plus another of the same bucket index: counts, sums and rejections add, min and max
   * combine.
   *
   * @throws IllegalArgumentException if the other holds a different bucket
   */
  public BucketHistogram plus(BucketHistogram other) {
    Objects.requireNonNull(other, "other");
    if (other.bucket != bucket) {
      throw Checks.invalid("other's bucket", bucket + " (this one's)", other.bucket);
    }
    int[] s = new int[slots.length + other.slots.length];
    long[] c = new long[s.length];
    int i = 0;
    int j = 0;
    int k = 0;
    while (i < slots.length || j < other.slots.length) {
      if (j == other.slots.length || (i < slots.length && slots[i] < other.slots[j])) {
        s[k] = slots[i];
        c[k++] = counts[i++];
      } else if (i == slots.length || other.slots[j] < slots[i]) {
        s[k] = other.slots[j];
        c[k++] = other.counts[j++];
      } else {
        s[k] = slots[i];
        c[k++] = counts[i++] + other.counts[j++];
      }
    }
    return new BucketHistogram(
        bucket,
        Arrays.copyOf(s, k),
        Arrays.copyOf(c, k),
        count + other.count,
        sum + other.sum,
        Math.min(min, other.min),
        Math.max(max, other.max),
        rejected + other.rejected);
  }

  /**
   * The snapshot of a window made of {@code buckets} (any number, in any order, possibly several
   * per bucket index) over the interval {@code [startNanos, endNanos]}, at the precision of {@code
   * config}: what the in-process window would report for the same samples.
   *
   * @throws IllegalArgumentException if a bucket has a slot outside the configuration's layout
   */
  public static HistogramSnapshot snapshot(
      WindowConfig config, Iterable<BucketHistogram> buckets, long startNanos, long endNanos) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(buckets, "buckets");
    BucketLayout layout = BucketLayout.of(config);
    int[][] slotLists = new int[8][];
    long[][] countLists = new long[8][];
    int lists = 0;
    long sum = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long rejected = 0;
    for (BucketHistogram b : buckets) {
      if (b.slots.length > 0 && b.slots[b.slots.length - 1] >= layout.length()) {
        throw Checks.invalid(
            "every bucket's slots",
            "below the configuration's " + layout.length(),
            b.slots[b.slots.length - 1]);
      }
      if (lists == slotLists.length) {
        slotLists = Arrays.copyOf(slotLists, lists * 2);
        countLists = Arrays.copyOf(countLists, lists * 2);
      }
      slotLists[lists] = b.slots;
      countLists[lists++] = b.counts;
      sum += b.sum;
      min = Math.min(min, b.min);
      max = Math.max(max, b.max);
      rejected += b.rejected;
    }
    int[] lengths = new int[lists];
    for (int l = 0; l < lists; l++) {
      lengths[l] = slotLists[l].length;
    }
    return SnapshotBuilder.ofLists(
        layout,
        slotLists,
        countLists,
        lengths,
        lists,
        new SnapshotFields(sum, min, max, rejected, startNanos, endNanos, null));
  }

  @Override
  public String toString() {
    return "BucketHistogram[bucket="
        + bucket
        + ", count="
        + count
        + ", sum="
        + sum
        + ", slots="
        + slots.length
        + ", rejected="
        + rejected
        + "]";
  }
}
