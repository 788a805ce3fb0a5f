package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import io.ringtail.HistogramSnapshot;
import io.ringtail.WindowConfig;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What a merger keeps in memory of the groups whose lease it holds: every key's merged buckets in
 * the window as of a stamp, kept up to date by its own commits (which it knows the values of) and,
 * after another process's commit, by reading only the buckets whose version changed. From them it
 * computes each group's {@link FleetCodec.Summary} every round, so readers that want numbers read a
 * few bytes per key instead of every bucket, and it knows its summaries without reading them.
 *
 * <p>A group's view is <em>synced</em> at a stamp when its buckets are those Redis held at that
 * stamp. Tentative values (a merge's, before its commit) are applied first and kept only if the
 * commit's compare-and-set succeeds; otherwise the buckets they touched are forgotten (read again
 * at the next sync). Memory: the held groups' merged buckets, about {@code keys x buckets x bytes
 * per bucket}. Thread-safe: each group's state is guarded by its own lock.
 */
final class MergedGroups {
  private final WindowConfig config;
  private final long widthNanos;
  private final int buckets;
  private final double[] percentiles;
  private final int[] spanBuckets;
  private final Group[] groups = new Group[FleetKeys.GROUPS];

  /**
   * @param percentiles what each summary carries, 0 to 100
   * @param spanBuckets the trailing spans, in buckets, whose totals each summary carries
   */
  MergedGroups(WindowConfig config, double[] percentiles, int[] spanBuckets) {
    this.config = config;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.percentiles = percentiles.clone();
    this.spanBuckets = spanBuckets.clone();
    for (int g = 0; g < groups.length; g++) {
      groups[g] = new Group();
    }
  }

  /** Whether group {@code g}'s view holds what Redis held at {@code stamp}. */
  boolean syncedAt(int g, String stamp) {
    Group group = groups[g];
    synchronized (group) {
      return group.stamp != null && group.stamp.equals(stamp == null ? "" : stamp);
    }
  }

  /**
   * Whether group {@code g}'s summary should be written again at {@code now} though nothing was
   * merged: its view is not synced at {@code stamp}, it has none yet, or a bucket closed since
   * while its window held samples.
   */
  boolean summaryDue(int g, String stamp, long now) {
    Group group = groups[g];
    synchronized (group) {
      return !syncedAt(g, stamp)
          || group.summary == null
          || (Math.floorDiv(now, widthNanos) > group.summaryLive
              && !group.summary.keys().isEmpty());
    }
  }

  /**
   * Takes the group's {@code head} (read after {@code stamp}) as the versions to sync to: drops the
   * keys and buckets it no longer lists, and returns, per key, the buckets (with their versions)
   * whose value this view does not hold at that version, to be read and {@link #put}.
   */
  Map<String, Map<Long, Long>> stale(int g, FleetCodec.Head head, long now) {
    long live = Math.floorDiv(now, widthNanos);
    long first = live - buckets + 1;
    Group group = groups[g];
    Map<String, Map<Long, Long>> out = new LinkedHashMap<>();
    synchronized (group) {
      group.keys.keySet().removeIf(key -> !head.keys().containsKey(key));
      for (Map.Entry<String, TreeMap<Long, Long>> e : head.keys().entrySet()) {
        NavigableMap<Long, Long> versions = e.getValue().subMap(first, true, live, true);
        if (versions.isEmpty()) {
          group.keys.remove(e.getKey());
          continue;
        }
        HeldBuckets held = group.keys.computeIfAbsent(e.getKey(), k -> new HeldBuckets(config));
        Map<Long, Long> stale = held.stale(first, live, versions);
        if (!stale.isEmpty()) {
          out.put(e.getKey(), stale);
        }
      }
      group.publishers = head.publishers();
      group.oldestPublicationNanos = head.oldestPublicationNanos();
    }
    return out;
  }

  /** Holds {@code histogram} (null: none) as {@code key}'s {@code bucket} at {@code version}. */
  void put(int g, String key, long bucket, long version, BucketHistogram histogram) {
    Group group = groups[g];
    synchronized (group) {
      group.keys.computeIfAbsent(key, k -> new HeldBuckets(config)).put(bucket, version, histogram);
    }
  }

  /** Whether {@code key}'s {@code bucket} is held at {@code version}. */
  boolean holds(int g, String key, long bucket, long version) {
    Group group = groups[g];
    synchronized (group) {
      HeldBuckets held = group.keys.get(key);
      return held != null && held.holds(bucket, version);
    }
  }

  /** The value held as {@code key}'s {@code bucket}, or null. */
  BucketHistogram get(int g, String key, long bucket) {
    Group group = groups[g];
    synchronized (group) {
      HeldBuckets held = group.keys.get(key);
      return held == null ? null : held.get(bucket);
    }
  }

  /**
   * The group's summary at {@code now} from what this view holds, with the processes and freshness
   * of the head this process read or wrote last.
   */
  FleetCodec.Summary summarise(int g, long now) {
    return summarise(g, now, Integer.MIN_VALUE, 0);
  }

  /** {@link #summarise(int, long)} with the processes and freshness of the head about to commit. */
  FleetCodec.Summary summarise(int g, long now, int publishers, long oldestPublicationNanos) {
    long live = Math.floorDiv(now, widthNanos);
    long first = live - buckets + 1;
    Group group = groups[g];
    synchronized (group) {
      if (publishers != Integer.MIN_VALUE) {
        group.publishers = publishers;
        group.oldestPublicationNanos = oldestPublicationNanos;
      }
      Map<String, FleetCodec.KeySummary> keys = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, HeldBuckets>> it = group.keys.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<String, HeldBuckets> e = it.next();
        HeldBuckets held = e.getValue();
        HistogramSnapshot window = held.snapshot(first, live, first * widthNanos, now);
        if (window.isEmpty() && window.rejected() == 0) {
          if (held.newest() == Long.MIN_VALUE) {
            it.remove(); // nothing left in the window
          }
          continue;
        }
        long[] values = new long[percentiles.length];
        if (!window.isEmpty()) {
          for (int i = 0; i < percentiles.length; i++) {
            values[i] = (long) window.valueAtPercentile(percentiles[i]);
          }
        }
        long[] spans = new long[3 * spanBuckets.length];
        for (int i = 0; i < spanBuckets.length; i++) {
          held.totalsFrom(live - spanBuckets[i] + 1, spans, 3 * i);
        }
        boolean empty = window.isEmpty();
        keys.put(
            e.getKey(),
            new FleetCodec.KeySummary(
                window.count(),
                window.sum(),
                empty ? 0 : (long) window.min(),
                empty ? 0 : (long) window.max(),
                window.rejected(),
                held.newest(),
                values,
                spans));
      }
      boolean none = keys.isEmpty() || group.publishers == 0;
      return new FleetCodec.Summary(
          now,
          none ? 0 : group.publishers,
          none ? now : group.oldestPublicationNanos,
          percentiles,
          spanBuckets,
          keys);
    }
  }

  /** A commit (or summary write) at {@code stamp} landed: the view is synced there. */
  void committed(int g, String stamp, FleetCodec.Summary summary) {
    Group group = groups[g];
    synchronized (group) {
      group.stamp = stamp;
      if (summary != null) {
        group.summary = summary;
        group.summaryLive = Math.floorDiv(summary.asOfNanos(), widthNanos);
      }
    }
  }

  /**
   * A commit did not land (another merge came first, or Redis failed): the view is synced nowhere,
   * and the buckets the merge had applied tentatively ({@code touched}: key and bucket) are
   * forgotten, so the next sync reads them.
   */
  void failed(int g, List<Map.Entry<String, Long>> touched) {
    Group group = groups[g];
    synchronized (group) {
      group.stamp = null;
      for (Map.Entry<String, Long> t : touched) {
        HeldBuckets held = group.keys.get(t.getKey());
        if (held != null) {
          held.forget(t.getValue());
        }
      }
    }
  }

  /** Forgets group {@code g} (its lease went elsewhere): frees its buckets. */
  void drop(int g) {
    Group group = groups[g];
    synchronized (group) {
      group.stamp = null;
      group.keys.clear();
      group.summary = null;
      group.summaryLive = Long.MIN_VALUE;
    }
  }

  /** The summary this process last wrote for group {@code g}, or null. */
  FleetCodec.Summary lastSummary(int g) {
    Group group = groups[g];
    synchronized (group) {
      return group.summary;
    }
  }

  /** Keys held per group now (tests, footprint). */
  Map<Integer, Integer> keysHeld() {
    Map<Integer, Integer> out = new HashMap<>();
    for (int g = 0; g < groups.length; g++) {
      synchronized (groups[g]) {
        if (!groups[g].keys.isEmpty()) {
          out.put(g, groups[g].keys.size());
        }
      }
    }
    return out;
  }

  /** One group's view. Guarded by itself. */
  private static final class Group {
    String stamp;
    final Map<String, HeldBuckets> keys = new HashMap<>();
    int publishers;
    long oldestPublicationNanos;
    FleetCodec.Summary summary;
    long summaryLive = Long.MIN_VALUE;
  }
}
