package io.ringtail.slo;

import java.util.Arrays;

/**
 * One window's counts in {@code buckets} buckets of {@code width} nanoseconds: per bucket the total
 * and one bad count per objective, in one array. Buckets are numbered by absolute index {@code
 * floor(t / width)}; the ring holds the newest bucket and the {@code buckets - 1} before it, so its
 * sum is the window's live partial bucket plus its complete ones.
 *
 * <p>Not thread-safe: its service level's lock guards it.
 */
final class CountRing {
  final long width;
  private final int buckets;
  private final int stride;
  private final long[] counts;

  /** The absolute index of the newest bucket. */
  private long newest;

  CountRing(long windowNanos, int buckets, int stride, long now) {
    this.width = windowNanos / buckets;
    this.buckets = buckets;
    this.stride = stride;
    this.counts = new long[buckets * stride];
    this.newest = Math.floorDiv(now, width);
  }

  /** Moves the newest bucket forward to {@code bucket}, clearing the buckets it passes. */
  void roll(long bucket) {
    long steps = bucket - newest;
    if (steps <= 0) {
      return;
    }
    if (steps >= buckets) {
      Arrays.fill(counts, 0);
    } else {
      for (long b = newest + 1; b <= bucket; b++) {
        int from = slot(b);
        Arrays.fill(counts, from, from + stride, 0);
      }
    }
    newest = bucket;
  }

  /** Adds {@code c} (a total, then the bad counts) into the newest bucket. */
  void add(long[] c) {
    int from = slot(newest);
    for (int i = 0; i < stride; i++) {
      counts[from + i] += c[i];
    }
  }

  /** Adds every bucket's counts into {@code out}. */
  void sumInto(long[] out) {
    for (int b = 0; b < counts.length; b += stride) {
      for (int i = 0; i < stride; i++) {
        out[i] += counts[b + i];
      }
    }
  }

  /** The absolute index of the newest bucket. */
  long newest() {
    return newest;
  }

  /** Where the newest bucket ends: the next rotation this ring needs. */
  long edgeAfterNewest() {
    return (newest + 1) * width;
  }

  /** Bytes it holds: the object and its array. */
  long footprintBytes() {
    return 40 + 16 + 8L * counts.length;
  }

  private int slot(long bucket) {
    return (int) Math.floorMod(bucket, (long) buckets) * stride;
  }
}
