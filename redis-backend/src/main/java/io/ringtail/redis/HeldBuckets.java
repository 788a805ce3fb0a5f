package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import io.ringtail.BucketHistogramSum;
import io.ringtail.HistogramSnapshot;
import io.ringtail.WindowConfig;
import java.util.Map;
import java.util.TreeMap;

/**
 * One key's merged buckets as this process last read or wrote them, each with the version the
 * group's head gave it (the stamp of the merge that last changed it), and their running sum: a
 * snapshot costs the slot range in use, not every bucket's slots. What a reader ({@link
 * FleetReader}) keeps per key, and what a merger ({@link FleetMerger}) keeps of the groups it
 * holds. Guarded by itself.
 */
final class HeldBuckets {
  /** A version no head gives: the bucket's value is not known to be any merge's. */
  static final long UNKNOWN = -1;

  private final TreeMap<Long, Held> buckets = new TreeMap<>();
  private final BucketHistogramSum sum;
  private long lastLive = Long.MIN_VALUE;

  HeldBuckets(WindowConfig config) {
    this.sum = new BucketHistogramSum(config);
  }

  /**
   * Drops the buckets outside {@code first..live} or no longer in {@code versions}; returns the
   * buckets of {@code versions} (bucket to version) not held at that version.
   */
  synchronized Map<Long, Long> stale(long first, long live, Map<Long, Long> versions) {
    buckets
        .entrySet()
        .removeIf(
            e -> {
              boolean out =
                  e.getKey() < first || e.getKey() > live || !versions.containsKey(e.getKey());
              if (out) {
                sum.remove(e.getValue().histogram);
              }
              return out;
            });
    Map<Long, Long> stale = new TreeMap<>();
    versions.forEach(
        (bucket, version) -> {
          Held h = buckets.get(bucket);
          if (h == null || h.version != version) {
            stale.put(bucket, version);
          }
        });
    return stale;
  }

  /** The live bucket at this key's last snapshot, or {@code Long.MIN_VALUE} if none. */
  synchronized long lastLive() {
    return lastLive;
  }

  /** The newest bucket held, or {@code Long.MIN_VALUE} if none. */
  synchronized long newest() {
    return buckets.isEmpty() ? Long.MIN_VALUE : buckets.lastKey();
  }

  /** Whether {@code bucket} is held at {@code version}. */
  synchronized boolean holds(long bucket, long version) {
    Held h = buckets.get(bucket);
    return h != null && h.version == version;
  }

  /** The histogram held as {@code bucket}, or null. */
  synchronized BucketHistogram get(long bucket) {
    Held h = buckets.get(bucket);
    return h == null ? null : h.histogram;
  }

  /** Holds {@code histogram} as {@code bucket} at {@code version}; null drops the bucket. */
  synchronized void put(long bucket, long version, BucketHistogram histogram) {
    Held before =
        histogram == null
            ? buckets.remove(bucket)
            : buckets.put(bucket, new Held(version, histogram));
    if (before != null) {
      sum.remove(before.histogram);
    }
    if (histogram != null) {
      sum.add(histogram);
    }
  }

  /** Marks {@code bucket}'s value as no merge's known one: the next sync reads it again. */
  synchronized void forget(long bucket) {
    Held h = buckets.get(bucket);
    if (h != null) {
      buckets.put(bucket, new Held(UNKNOWN, h.histogram));
    }
  }

  /** The window of the buckets held in {@code first..live}, dropping any outside it. */
  synchronized HistogramSnapshot snapshot(long first, long live, long startNanos, long now) {
    lastLive = Math.max(lastLive, live);
    buckets
        .entrySet()
        .removeIf(
            e -> {
              boolean out = e.getKey() < first || e.getKey() > live;
              if (out) {
                sum.remove(e.getValue().histogram);
              }
              return out;
            });
    return sum.snapshot(startNanos, now);
  }

  /**
   * The count, sum and rejected count of the buckets held from {@code from} on, added into {@code
   * out} at {@code at} (three longs).
   */
  synchronized void totalsFrom(long from, long[] out, int at) {
    for (Held h : buckets.tailMap(from, true).values()) {
      out[at] += h.histogram.count();
      out[at + 1] += h.histogram.sum();
      out[at + 2] += h.histogram.rejected();
    }
  }

  /** One merged bucket as held, with the version the head gave it. */
  private record Held(long version, BucketHistogram histogram) {}
}
