package io.ringtail.redis;

import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.HistogramSnapshot;
import io.ringtail.WindowConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The reading side of the fleet histogram engine: reads what the mergers wrote ({@link
 * FleetMerger}), never a process's deltas. A read of some keys reads their groups' heads (one
 * {@code MGET} on a standalone server, one {@code GET} per group on a cluster, all sent at once),
 * then only the merged buckets whose version changed since this reader last read them (one {@code
 * MGET} per group). It keeps what it read, per key, for the keys it read most recently, so Redis
 * work per read is O(keys + buckets changed since the last read), whatever the number of processes.
 * Thread-safe.
 */
final class FleetReader {
  private final ScriptRunner runner;
  private final FleetKeys keys;
  private final WindowConfig config;
  private final boolean cluster;
  private final long widthNanos;
  private final int buckets;
  private final Map<String, HeldBuckets> cache;

  /**
   * How many buckets before the live one at a key's last read may still take merges after it: a
   * closed bucket is sent at the publishers' next tick and merged at its group's next merge, both
   * within an interval of a bucket (and a read fetches these again with the heads).
   */
  static final int MERGE_LAG = 2;

  /** Keeps the merged buckets of the {@code cachedKeys} keys read most recently. */
  FleetReader(
      ScriptRunner runner, FleetKeys keys, WindowConfig config, boolean cluster, long cachedKeys) {
    this.runner = runner;
    this.keys = keys;
    this.config = config;
    this.cluster = cluster;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    int bound = (int) Math.min(Integer.MAX_VALUE - 1, Math.max(256, cachedKeys));
    this.cache =
        Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<String, HeldBuckets> eldest) {
                return size() > bound;
              }
            });
  }

  /**
   * The fleet's windows at {@code now} of {@code wanted} keys (each, empty or not), or with {@code
   * wanted} null of every key the fleet published in the window, at most {@code limit} of them, the
   * most recently published first (only those with samples).
   */
  CompletableFuture<Map<String, RedisHistogramSnapshot>> read(
      Collection<String> wanted, long now, long limit) {
    long live = Math.floorDiv(now, widthNanos);
    long first = live - buckets + 1;
    boolean[] groups = new boolean[FleetKeys.GROUPS];
    if (wanted == null) {
      java.util.Arrays.fill(groups, true);
    } else {
      for (String key : wanted) {
        groups[FleetKeys.group(key)] = true;
      }
    }
    Map<String, byte[]> speculated = new HashMap<>();
    return heads(groups, speculation(wanted, groups, first, live), speculated)
        .thenCompose(
            heads -> {
              Map<String, TreeMap<Long, Long>> chosen = new LinkedHashMap<>();
              if (wanted != null) {
                for (String key : wanted) {
                  TreeMap<Long, Long> v = heads[FleetKeys.group(key)].keys().get(key);
                  chosen.put(key, v == null ? new TreeMap<>() : v);
                }
              } else {
                List<Map.Entry<String, TreeMap<Long, Long>>> all = new ArrayList<>();
                for (FleetCodec.Head h : heads) {
                  if (h != null) {
                    for (Map.Entry<String, TreeMap<Long, Long>> e : h.keys().entrySet()) {
                      if (!e.getValue().isEmpty() && e.getValue().lastKey() >= first) {
                        all.add(e);
                      }
                    }
                  }
                }
                all.sort(
                    Comparator.comparing(
                            (Map.Entry<String, TreeMap<Long, Long>> e) -> e.getValue().lastKey())
                        .reversed());
                for (Map.Entry<String, TreeMap<Long, Long>> e : all) {
                  if (chosen.size() >= limit) {
                    break;
                  }
                  chosen.put(e.getKey(), e.getValue());
                }
              }
              return changed(chosen, first, live, speculated)
                  .thenApply(done -> snapshots(chosen, heads, first, now, wanted == null));
            });
  }

  /**
   * The groups' summaries ({@link FleetCodec.Summary}, written by each group's merger), read at
   * {@code now}: of {@code wanted} keys (each, empty if no summary lists it), or with {@code
   * wanted} null of every key the summaries list with samples, at most {@code limit} of them, the
   * most recently published first. One {@code MGET} of the groups' summaries on a standalone
   * server, one {@code GET} per group on a cluster, all sent at once. A summary whose window ended
   * before the window at {@code now} began lists nothing.
   */
  CompletableFuture<Map<String, FleetSummary>> summaries(
      Collection<String> wanted, long now, long limit, FleetCodec.Summary empty) {
    long first = Math.floorDiv(now, widthNanos) - buckets + 1;
    boolean[] groups = new boolean[FleetKeys.GROUPS];
    if (wanted == null) {
      java.util.Arrays.fill(groups, true);
    } else {
      for (String key : wanted) {
        groups[FleetKeys.group(key)] = true;
      }
    }
    Map<Integer, List<Integer>> commands = new LinkedHashMap<>();
    for (int g = 0; g < groups.length; g++) {
      if (groups[g]) {
        commands.computeIfAbsent(cluster ? g : -1, x -> new ArrayList<>()).add(g);
      }
    }
    List<List<Integer>> sent = new ArrayList<>(commands.values());
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>();
    runner.batched(
        () -> {
          for (List<Integer> read : sent) {
            replies.add(
                runner.call(
                    RedisCall.command(
                        CommandType.MGET,
                        read.stream().map(keys::summary).toArray(String[]::new))));
          }
        });
    return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              FleetCodec.Summary[] summaries = new FleetCodec.Summary[FleetKeys.GROUPS];
              for (int c = 0; c < sent.size(); c++) {
                List<Object> reply = replies.get(c).join();
                for (int i = 0; i < reply.size(); i++) {
                  FleetCodec.Summary s =
                      FleetCodec.Summary.decode((byte[]) reply.get(i), widthNanos);
                  if (s != null && Math.floorDiv(s.asOfNanos(), widthNanos) >= first) {
                    summaries[sent.get(c).get(i)] = s;
                  }
                }
              }
              return pick(summaries, wanted, now, limit, empty);
            });
  }

  /** The keys of {@code wanted} (or every key listed, up to {@code limit}) as fleet summaries. */
  private Map<String, FleetSummary> pick(
      FleetCodec.Summary[] summaries,
      Collection<String> wanted,
      long now,
      long limit,
      FleetCodec.Summary empty) {
    Map<String, FleetSummary> out = new LinkedHashMap<>();
    if (wanted != null) {
      for (String key : wanted) {
        FleetCodec.Summary s = summaries[FleetKeys.group(key)];
        FleetCodec.KeySummary k = s == null ? null : s.keys().get(key);
        out.put(
            key,
            k == null
                ? emptySummary(s == null ? empty : s, now)
                : new FleetSummary(s, k, widthNanos, buckets, now, null));
      }
      return out;
    }
    List<Map.Entry<String, FleetSummary>> all = new ArrayList<>();
    List<Long> newest = new ArrayList<>();
    for (FleetCodec.Summary s : summaries) {
      if (s == null) {
        continue;
      }
      for (Map.Entry<String, FleetCodec.KeySummary> e : s.keys().entrySet()) {
        all.add(
            Map.entry(
                e.getKey(), new FleetSummary(s, e.getValue(), widthNanos, buckets, now, null)));
        newest.add(e.getValue().newestBucket());
      }
    }
    Integer[] order = new Integer[all.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, Comparator.comparing((Integer i) -> newest.get(i)).reversed());
    for (int i : order) {
      if (out.size() >= limit) {
        break;
      }
      out.put(all.get(i).getKey(), all.get(i).getValue());
    }
    return out;
  }

  /** An empty key of {@code like}'s percentiles and spans, as of {@code now}. */
  FleetSummary emptySummary(FleetCodec.Summary like, long now) {
    FleetCodec.Summary group =
        new FleetCodec.Summary(now, 0, now, like.percentiles(), like.spanBuckets(), Map.of());
    return new FleetSummary(
        group,
        new FleetCodec.KeySummary(
            0,
            0,
            0,
            0,
            0,
            Long.MIN_VALUE,
            new long[like.percentiles().length],
            new long[3 * like.spanBuckets().length]),
        widthNanos,
        buckets,
        now,
        null);
  }

  /**
   * The buckets most likely changed since this reader's last read, per command group: for each key
   * it holds in the groups read (of {@code wanted} only, when given) that saw samples lately, the
   * buckets from {@link #MERGE_LAG} before the live one at its last read to the live one now. Under
   * a steady load they are the ones merged since, so reading them with the heads makes a read one
   * round trip.
   */
  private Map<Integer, List<String>> speculation(
      Collection<String> wanted, boolean[] groups, long first, long live) {
    Map<Integer, List<String>> out = new HashMap<>();
    Collection<String> held;
    synchronized (cache) {
      held = new ArrayList<>(wanted != null ? wanted : cache.keySet());
    }
    for (String key : held) {
      int g = FleetKeys.group(key);
      HeldBuckets h = cache.get(key);
      if (!groups[g] || h == null || h.lastLive() == Long.MIN_VALUE) {
        continue;
      }
      long from = Math.max(first, h.lastLive() - MERGE_LAG);
      // a key idle for a while is not speculated on: its buckets are read once its head says so
      if (h.newest() < from - MERGE_LAG) {
        continue;
      }
      List<String> list = out.computeIfAbsent(cluster ? g : -1, x -> new ArrayList<>());
      for (long b = from; b <= live; b++) {
        list.add(keys.bucket(g, key, b));
      }
    }
    return out;
  }

  /**
   * The heads of the groups marked, indexed by group (null where not read), read with the {@code
   * speculation}'s buckets, whose values go to {@code speculated}: one {@code MGET} on a standalone
   * server, one per group on a cluster (a group's keys share a slot), all sent at once. Each {@code
   * MGET} reads a group's head and its buckets at one instant.
   */
  private CompletableFuture<FleetCodec.Head[]> heads(
      boolean[] groups, Map<Integer, List<String>> speculation, Map<String, byte[]> speculated) {
    Map<Integer, List<String>> commands = new LinkedHashMap<>();
    List<Integer> read = new ArrayList<>();
    for (int g = 0; g < groups.length; g++) {
      if (groups[g]) {
        read.add(g);
        commands.computeIfAbsent(cluster ? g : -1, x -> new ArrayList<>()).add(keys.head(g));
      }
    }
    speculation.forEach((c, bucketKeys) -> commands.get(c).addAll(bucketKeys));
    List<List<String>> sent = new ArrayList<>(commands.values());
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>();
    runner.batched(
        () -> {
          for (List<String> mget : sent) {
            replies.add(
                runner.call(RedisCall.command(CommandType.MGET, mget.toArray(String[]::new))));
          }
        });
    return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              FleetCodec.Head[] heads = new FleetCodec.Head[FleetKeys.GROUPS];
              Map<String, Object> values = new HashMap<>();
              for (int c = 0; c < sent.size(); c++) {
                List<Object> reply = replies.get(c).join();
                for (int i = 0; i < reply.size(); i++) {
                  values.put(sent.get(c).get(i), reply.get(i));
                }
              }
              for (int g : read) {
                heads[g] = FleetCodec.Head.decode((byte[]) values.remove(keys.head(g)));
              }
              values.forEach((key, value) -> speculated.put(key, (byte[]) value));
              return heads;
            });
  }

  /** Reads the merged buckets of the window whose version differs from what this reader holds. */
  private CompletableFuture<Void> changed(
      Map<String, TreeMap<Long, Long>> chosen,
      long first,
      long live,
      Map<String, byte[]> speculated) {
    Map<Integer, List<String>> keysByGroup = new HashMap<>();
    Map<Integer, List<Object[]>> pending = new HashMap<>();
    for (Map.Entry<String, TreeMap<Long, Long>> e : chosen.entrySet()) {
      String key = e.getKey();
      HeldBuckets held = cache.computeIfAbsent(key, k -> new HeldBuckets(config));
      int g = FleetKeys.group(key);
      NavigableMap<Long, Long> versions = e.getValue().subMap(first, true, live, true);
      for (Map.Entry<Long, Long> b : held.stale(first, live, versions).entrySet()) {
        String bucketKey = keys.bucket(g, key, b.getKey());
        if (speculated.containsKey(bucketKey)) {
          // read with the head, in the same MGET: the value of the version the head gives
          held.put(
              b.getKey(),
              b.getValue(),
              FleetCodec.decodeBucket(b.getKey(), speculated.get(bucketKey)));
          continue;
        }
        keysByGroup.computeIfAbsent(cluster ? g : 0, x -> new ArrayList<>()).add(bucketKey);
        pending
            .computeIfAbsent(cluster ? g : 0, x -> new ArrayList<>())
            .add(new Object[] {held, b.getKey(), b.getValue()});
      }
    }
    if (keysByGroup.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    runner.batched(
        () -> {
          for (Map.Entry<Integer, List<String>> e : keysByGroup.entrySet()) {
            List<Object[]> targets = pending.get(e.getKey());
            reads.add(
                runner
                    .call(RedisCall.command(CommandType.MGET, e.getValue().toArray(String[]::new)))
                    .thenAccept(
                        values -> {
                          for (int i = 0; i < targets.size(); i++) {
                            HeldBuckets held = (HeldBuckets) targets.get(i)[0];
                            long bucket = (Long) targets.get(i)[1];
                            long version = (Long) targets.get(i)[2];
                            // null: expired since the head was written
                            held.put(
                                bucket,
                                version,
                                FleetCodec.decodeBucket(bucket, (byte[]) values.get(i)));
                          }
                        }));
          }
        });
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
  }

  private Map<String, RedisHistogramSnapshot> snapshots(
      Map<String, TreeMap<Long, Long>> chosen,
      FleetCodec.Head[] heads,
      long first,
      long now,
      boolean onlyWithSamples) {
    long live = Math.floorDiv(now, widthNanos);
    Map<String, RedisHistogramSnapshot> out = new LinkedHashMap<>();
    for (String key : chosen.keySet()) {
      HeldBuckets held = cache.get(key);
      HistogramSnapshot window =
          held == null
              ? BucketHistogram.snapshot(config, List.of(), first * widthNanos, now)
              : held.snapshot(first, live, first * widthNanos, now);
      FleetCodec.Head head = heads[FleetKeys.group(key)];
      // the group's processes and freshness, for a key with buckets in the window
      boolean none = head.publishers() == 0 || (window.isEmpty() && window.rejected() == 0);
      RedisHistogramSnapshot s =
          new RedisHistogramSnapshot(
              window,
              none ? 0 : head.publishers(),
              none ? now : Math.min(now, head.oldestPublicationNanos()));
      if (!onlyWithSamples || s.count() > 0 || s.rejected() > 0) {
        out.put(key, s);
      }
    }
    return out;
  }
}
