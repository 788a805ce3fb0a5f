package io.ringtail.redis;

import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.WindowConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reading side of {@link RedisKeyedHistogramWindows}: reads a key's buckets (every process's
 * delta fields), merges them here, keeps the merged buckets of the most recently read keys so that
 * a later read re-reads only buckets whose version changed, and writes the merge of a settled
 * bucket back as one field. Thread-safe.
 */
final class FleetReader {
  private static final int CACHED_KEYS = 256;

  /** A reader merges a bucket's fields once it is this many buckets behind the live one. */
  private static final int SETTLED_BUCKETS = 3;

  /** The field counting the fields merged away from a bucket (see {@code fleet_compact.lua}). */
  static final String MERGED_AWAY = "#r";

  /** Prefix of a merged field's name (never a publisher id, which is base 36). */
  static final String MERGED_PREFIX = "=";

  private final ScriptRunner runner;
  private final FleetKeys keys;
  private final WindowConfig config;
  private final long widthNanos;
  private final int buckets;
  private final String publisherId;
  private final AtomicLong merges = new AtomicLong();
  private final Map<String, KeyCache> cache =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, KeyCache> eldest) {
              return size() > CACHED_KEYS;
            }
          });

  /**
   * Reads {@code keys}' buckets of {@code config}'s layout; names its merged fields after {@code
   * publisherId}.
   */
  FleetReader(ScriptRunner runner, FleetKeys keys, WindowConfig config, String publisherId) {
    this.runner = runner;
    this.keys = keys;
    this.config = config;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.publisherId = publisherId;
  }

  /**
   * Reads the key's buckets {@code floor(now / width) - buckets + 1 ..} and merges them: the two
   * newest with {@code HGETALL}, older ones already merged here with {@code HLEN} first (and {@code
   * HGETALL} if their field count changed), all sent at once.
   */
  CompletableFuture<RedisHistogramSnapshot> read(String key, long now) {
    long live = Math.floorDiv(now, widthNanos);
    long first = live - buckets + 1;
    KeyCache kc = cache.computeIfAbsent(key, k -> new KeyCache());
    kc.buckets.keySet().removeIf(b -> b < first);
    String base = keys.keyBase(key);
    List<CompletableFuture<Void>> steps = new ArrayList<>(buckets);
    List<String> checked = new ArrayList<>();
    List<Long> checkedBuckets = new ArrayList<>();
    // every HGETALL in one flush: a first read of a key is up to a window's buckets at once
    runner.batched(
        () -> {
          for (long b = first; b <= live; b++) {
            Cached known = kc.buckets.get(b);
            if (known == null || b >= live - 1) {
              steps.add(readAll(kc, base + b, b));
            } else {
              checked.add(base + b);
              checkedBuckets.add(b);
            }
          }
        });
    if (!checked.isEmpty()) {
      steps.add(
          runner
              .call(
                  RedisCall.script(
                      HistogramScripts.FIELD_COUNTS, checked.toArray(String[]::new), new byte[0][]))
              .thenCompose(
                  counts -> {
                    List<CompletableFuture<Void>> changed = new ArrayList<>();
                    runner.batched(
                        () -> {
                          for (int i = 0; i < counts.size(); i++) {
                            long b = checkedBuckets.get(i);
                            Cached known = kc.buckets.get(b);
                            if (known == null || (Long) counts.get(i) != known.version) {
                              changed.add(readAll(kc, checked.get(i), b));
                            }
                          }
                        });
                    return CompletableFuture.allOf(changed.toArray(CompletableFuture[]::new));
                  }));
    }
    return CompletableFuture.allOf(steps.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              RedisHistogramSnapshot snapshot = merge(kc, first, live, now);
              compact(kc, base, first, live - SETTLED_BUCKETS);
              return snapshot;
            });
  }

  /**
   * Merges in Redis the fields of every bucket from {@code first} to {@code last} that holds more
   * than one, as this reader has just merged them (one {@code fleet_compact.lua} call per bucket,
   * O(its fields)): later readers then read one field per bucket. Not waited for; a bucket whose
   * fields changed meanwhile is left as it is. Either way the bucket is read again next time.
   */
  private void compact(KeyCache kc, String base, long first, long last) {
    for (long b = first; b <= last; b++) {
      Cached c = kc.buckets.get(b);
      if (c == null || c.fields.size() < 2 || !kc.compacting.add(b)) {
        continue;
      }
      long bucket = b;
      byte[][] args = new byte[2 + c.fields.size()][];
      args[0] =
          ascii(MERGED_PREFIX + publisherId + ":" + Long.toString(merges.incrementAndGet(), 36));
      args[1] = FleetDeltas.encodeMerged(c.histogram, c.covered, c.coveredAsOf);
      for (int i = 0; i < c.fields.size(); i++) {
        args[2 + i] = c.fields.get(i).getBytes(StandardCharsets.UTF_8);
      }
      runner
          .call(RedisCall.script(HistogramScripts.COMPACT, new String[] {base + b}, args))
          .whenComplete(
              (reply, error) -> {
                kc.buckets.remove(bucket, c);
                kc.compacting.remove(bucket);
              });
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private CompletableFuture<Void> readAll(KeyCache kc, String bucketKey, long bucket) {
    return runner
        .call(RedisCall.command(CommandType.HGETALL, bucketKey))
        .thenAccept(reply -> kc.buckets.put(bucket, Cached.of(bucket, reply)));
  }

  private RedisHistogramSnapshot merge(KeyCache kc, long first, long live, long now) {
    List<BucketHistogram> parts = new ArrayList<>(buckets);
    Map<String, Long> latest = new HashMap<>();
    for (long b = first; b <= live; b++) {
      Cached c = kc.buckets.get(b);
      if (c == null || c.fields.isEmpty()) {
        continue;
      }
      parts.add(c.histogram);
      for (int i = 0; i < c.publishers.length; i++) {
        latest.merge(c.publishers[i], c.asOf[i], Math::max);
      }
    }
    long oldest = now;
    for (long asOf : latest.values()) {
      oldest = Math.min(oldest, asOf);
    }
    return new RedisHistogramSnapshot(
        BucketHistogram.snapshot(config, parts, first * widthNanos, now), latest.size(), oldest);
  }

  /** A key's buckets as last read, merged, and those whose fields are being merged in Redis. */
  private static final class KeyCache {
    final Map<Long, Cached> buckets = new ConcurrentHashMap<>();
    final Set<Long> compacting = ConcurrentHashMap.newKeySet();
  }

  /**
   * One bucket as read: its version (fields plus fields merged away), its fields merged, each
   * publisher's latest as-of, and what a merge of its fields into one needs: the fields there now
   * and every delta field their content covers, with its as-of time.
   */
  private record Cached(
      long version,
      BucketHistogram histogram,
      String[] publishers,
      long[] asOf,
      List<String> fields,
      List<String> covered,
      List<Long> coveredAsOf) {
    static Cached of(long bucket, List<Object> hgetall) {
      FleetDeltas.Merge merge = new FleetDeltas.Merge();
      Map<String, Long> covered = new LinkedHashMap<>();
      List<String> fields = new ArrayList<>();
      long mergedAway = 0;
      // merged fields first: a delta field they cover is one a late retry wrote again
      for (int i = 0; i + 1 < hgetall.size(); i += 2) {
        String field = new String((byte[]) hgetall.get(i), StandardCharsets.UTF_8);
        byte[] value = (byte[]) hgetall.get(i + 1);
        if (field.equals(MERGED_AWAY)) {
          mergedAway = Long.parseLong(new String(value, StandardCharsets.US_ASCII));
        } else if (FleetDeltas.isMerged(value)) {
          merge.add(value, covered);
          fields.add(field);
        }
      }
      for (int i = 0; i + 1 < hgetall.size(); i += 2) {
        String field = new String((byte[]) hgetall.get(i), StandardCharsets.UTF_8);
        byte[] value = (byte[]) hgetall.get(i + 1);
        if (field.equals(MERGED_AWAY) || FleetDeltas.isMerged(value)) {
          continue;
        }
        fields.add(field);
        if (!covered.containsKey(field)) {
          covered.put(field, merge.add(value));
        }
      }
      Map<String, Long> latest = new HashMap<>();
      covered.forEach((field, at) -> latest.merge(publisherOf(field), at, Math::max));
      String[] publishers = latest.keySet().toArray(String[]::new);
      long[] asOf = new long[publishers.length];
      for (int i = 0; i < publishers.length; i++) {
        asOf[i] = latest.get(publishers[i]);
      }
      return new Cached(
          hgetall.size() / 2 + mergedAway,
          merge.result(bucket),
          publishers,
          asOf,
          fields,
          List.copyOf(covered.keySet()),
          List.copyOf(covered.values()));
    }

    private static String publisherOf(String field) {
      int colon = field.indexOf(':');
      return colon < 0 ? field : field.substring(0, colon);
    }
  }
}
