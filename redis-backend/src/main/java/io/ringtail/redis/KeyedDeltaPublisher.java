package io.ringtail.redis;

import com.github.benmanes.caffeine.cache.Cache;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The publication side of one {@link RedisKeyedHistogramWindows}: in each round of the backend's
 * {@link FleetPublisher} it drains every key's recorder (and those of keys just dropped), keeps at
 * most two deltas per key and bucket (one in flight, frozen with its field name and bytes, one
 * collecting), sends each as one {@code HSET} and {@code PEXPIRE}, and marks published keys in the
 * window's key index. A retried delta keeps its field and bytes, so it never counts twice. What an
 * outage makes wait is bounded by {@code maxPendingDeltas}; what leaves the window or the bound is
 * counted. Thread-safe: rounds and readers of its state hold its lock.
 */
final class KeyedDeltaPublisher implements FleetPublisher.Source {
  /** How long a dropped key's recorder is still drained: longer than any record takes. */
  private static final long RETIRED_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ScriptRunner runner;
  private final FleetKeys keys;
  private final TimeSource time;
  private final TimeSource localClock = TimeSource.system();
  private final Cache<String, BucketRecorder> recorders;
  private final String publisherId;
  private final long widthNanos;
  private final int buckets;
  private final long graceMillis;
  private final long intervalNanos;
  private final int maxPendingDeltas;
  private final ConcurrentLinkedQueue<Retired> retired = new ConcurrentLinkedQueue<>();

  // guarded by this
  private final Map<Delta, Pending> pending = new HashMap<>();
  private final Map<String, Long> indexed = new HashMap<>();

  /** Each held key's latest bucket with samples, as drained (or when first seen). */
  private final Map<String, Long> lastActive = new HashMap<>();

  private long sequence;

  private final LongAdder published = new LongAdder();
  private final LongAdder publishCalls = new LongAdder();
  private final LongAdder retriedDuplicates = new LongAdder();
  private final LongAdder failedCalls = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final LongAdder dropped = new LongAdder();

  /**
   * @param recorders the window's keys, drained each round
   * @param graceMillis added to every TTL, beyond the end of the window
   */
  KeyedDeltaPublisher(
      ScriptRunner runner,
      FleetKeys keys,
      TimeSource time,
      WindowConfig config,
      Cache<String, BucketRecorder> recorders,
      String publisherId,
      long intervalNanos,
      int maxPendingDeltas,
      long graceMillis) {
    this.runner = runner;
    this.keys = keys;
    this.time = time;
    this.recorders = recorders;
    this.publisherId = publisherId;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.intervalNanos = intervalNanos;
    this.maxPendingDeltas = maxPendingDeltas;
    this.graceMillis = graceMillis;
  }

  @Override
  public long intervalNanos() {
    return intervalNanos;
  }

  /** A key's recorder dropped from the cache: drained for a second more, then forgotten. */
  void retire(String key, BucketRecorder recorder) {
    retired.add(new Retired(key, recorder, localClock.nanoTime()));
  }

  /** Heap held by the deltas waiting for Redis. */
  synchronized long footprintBytes() {
    long bytes = 0;
    for (Pending p : pending.values()) {
      bytes += p.bytes();
    }
    return bytes;
  }

  synchronized int pendingDeltas() {
    return pending.size();
  }

  /**
   * What happened to this process's samples so far: a pending "bucket" is one key's delta to one
   * bucket, a publish call one delta's {@code HSET} and {@code PEXPIRE}, answered.
   */
  RedisHistogramWindowStats stats() {
    long samples = 0;
    int deltas;
    synchronized (this) {
      for (Pending p : pending.values()) {
        samples += p.samples();
      }
      deltas = pending.size();
    }
    return new RedisHistogramWindowStats(
        published.sum(),
        publishCalls.sum(),
        retriedDuplicates.sum(),
        failedCalls.sum(),
        samples,
        deltas,
        expired.sum(),
        dropped.sum(),
        runner.scriptReloads.sum());
  }

  @Override
  public synchronized void collect() {
    collectLocked(time.nanoTime());
  }

  @Override
  public synchronized void publish(List<CompletableFuture<?>> calls, boolean all) {
    long now = time.nanoTime();
    long live = Math.floorDiv(now, widthNanos);
    long oldestInWindow = live - buckets + 1;
    collectLocked(now);
    Set<String> toIndex = new LinkedHashSet<>();
    List<Pending> toSend = new ArrayList<>();
    // a ticker holds the live bucket back until it closes: one delta per key and bucket
    boolean holdLive = !all && intervalNanos >= widthNanos;
    for (Pending p : pending.values()) {
      if (p.sending || (holdLive && p.delta.bucket >= live && p.inFlight == null)) {
        continue;
      }
      if (p.inFlight == null && p.unsent != null) {
        p.inFlight = p.unsent;
        p.unsent = null;
        p.field = publisherId + ":" + Long.toString(++sequence, 36);
        p.bytes = FleetDeltas.encode(p.inFlight, now);
      }
      if (p.inFlight != null) {
        p.sending = true;
        toSend.add(p);
        Long last = indexed.get(p.delta.key);
        if (last == null || live - last >= reindexBuckets()) {
          toIndex.add(p.delta.key);
        }
      }
    }
    // a reply may complete its call at once, removing from pending: send after the loop
    for (Pending p : toSend) {
      calls.add(send(p, now));
    }
    if (!toIndex.isEmpty()) {
      calls.add(index(List.copyOf(toIndex), live, oldestInWindow));
    }
  }

  /**
   * Drains every key's recorder (and those of keys just dropped) into the pending deltas, expires
   * what left the window and drops the oldest beyond the bound; holding the lock.
   */
  private void collectLocked(long now) {
    long live = Math.floorDiv(now, widthNanos);
    long oldestInWindow = live - buckets + 1;
    for (Map.Entry<String, BucketRecorder> e : recorders.asMap().entrySet()) {
      List<BucketHistogram> drained = e.getValue().drain();
      take(e.getKey(), drained);
      dropIfIdle(e.getKey(), e.getValue(), drained, live);
    }
    lastActive.keySet().removeIf(key -> !recorders.asMap().containsKey(key));
    // a dropped key's recorder is drained for a second more, in case a record was under way
    long local = localClock.nanoTime();
    for (Iterator<Retired> it = retired.iterator(); it.hasNext(); ) {
      Retired r = it.next();
      take(r.key, r.recorder.drain());
      if (++r.drains >= 2 && local - r.retiredAt >= RETIRED_NANOS) {
        it.remove();
      }
    }
    Pending oldestUnsent = null;
    for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
      Pending p = it.next();
      if (p.sending) {
        continue;
      }
      if (p.delta.bucket < oldestInWindow) {
        expired.add(p.samples());
        it.remove();
      } else if (oldestUnsent == null || p.delta.bucket < oldestUnsent.delta.bucket) {
        oldestUnsent = p;
      }
    }
    while (pending.size() > maxPendingDeltas && oldestUnsent != null) {
      dropped.add(oldestUnsent.samples());
      pending.remove(oldestUnsent.delta);
      oldestUnsent = null;
      for (Pending p : pending.values()) {
        if (!p.sending && (oldestUnsent == null || p.delta.bucket < oldestUnsent.delta.bucket)) {
          oldestUnsent = p;
        }
      }
    }
  }

  /**
   * Drops a key from the process once it saw no sample for a window, as of the rounds: the rounds
   * time a key's idleness, not the record path (which reads no clock for it). Its recorder is then
   * retired like one evicted for size.
   */
  private void dropIfIdle(
      String key, BucketRecorder recorder, List<BucketHistogram> drained, long live) {
    if (!drained.isEmpty()) {
      lastActive.put(key, drained.get(drained.size() - 1).bucket());
      return;
    }
    Long last = lastActive.putIfAbsent(key, live);
    if (last != null && live - last >= buckets) {
      recorders.asMap().remove(key, recorder);
      lastActive.remove(key);
    }
  }

  private void take(String key, List<BucketHistogram> drained) {
    for (BucketHistogram d : drained) {
      Pending p = pending.computeIfAbsent(new Delta(key, d.bucket()), Pending::new);
      p.unsent = p.unsent == null ? d : p.unsent.plus(d);
    }
  }

  /** One delta: HSET of its field, PEXPIRE of its bucket. Called holding the source's lock. */
  private CompletableFuture<?> send(Pending p, long now) {
    String bucketKey = keys.keyBase(p.delta.key) + p.delta.bucket;
    long ttlMillis =
        Math.max(1, ((p.delta.bucket + buckets) * widthNanos - now) / 1_000_000L) + graceMillis;
    BucketHistogram d = p.inFlight;
    CompletableFuture<List<Object>> set =
        runner.call(
            RedisCall.command(
                CommandType.HSET,
                new CommandArgs<>(StringCodec.UTF8).addKey(bucketKey).add(p.field).add(p.bytes)));
    // sent after the HSET on the same connection: in strict mode its confirmation covers both,
    // and a delta the replicas did not confirm stays pending and is sent again (same field)
    CompletableFuture<List<Object>> expire =
        runner.call(
            RedisCall.write(
                CommandType.PEXPIRE,
                new CommandArgs<>(StringCodec.UTF8).addKey(bucketKey).add(ttlMillis),
                bucketKey));
    return set.thenCombine(expire, (reply, ignored) -> reply)
        .handle(
            (reply, error) -> {
              synchronized (this) {
                p.sending = false;
                if (error == null) {
                  publishCalls.increment();
                  if (Long.valueOf(0).equals(reply.get(0))) {
                    retriedDuplicates.increment();
                  }
                  published.add(d.count() + d.rejected());
                  p.inFlight = null;
                  p.bytes = null;
                  if (p.unsent == null && pending.get(p.delta) == p) {
                    pending.remove(p.delta);
                  }
                } else {
                  failedCalls.increment();
                }
              }
              return null;
            });
  }

  /** How often, in buckets, a process marks a key it publishes in the index again. */
  int reindexBuckets() {
    return Math.max(1, buckets / 4);
  }

  /** Marks keys as published in bucket {@code live}; forgets keys that left the window. */
  private CompletableFuture<?> index(List<String> toIndex, long live, long oldestInWindow) {
    CommandArgs<String, String> add =
        new CommandArgs<>(StringCodec.UTF8).addKey(keys.index()).add("GT");
    for (String key : toIndex) {
      add.add(live).add(key);
    }
    long ttlMillis = (buckets + reindexBuckets()) * widthNanos / 1_000_000L + graceMillis;
    CompletableFuture<List<Object>> added = runner.call(RedisCall.command(CommandType.ZADD, add));
    CompletableFuture<List<Object>> trimmed =
        runner.call(
            RedisCall.command(
                CommandType.ZREMRANGEBYSCORE,
                new CommandArgs<>(StringCodec.UTF8)
                    .addKey(keys.index())
                    .add("-inf")
                    .add("(" + (oldestInWindow - reindexBuckets()))));
    CompletableFuture<List<Object>> expire =
        runner.call(
            RedisCall.write(
                CommandType.PEXPIRE,
                new CommandArgs<>(StringCodec.UTF8).addKey(keys.index()).add(ttlMillis),
                keys.index()));
    return CompletableFuture.allOf(added, trimmed, expire)
        .handle(
            (ok, error) -> {
              if (error == null) {
                synchronized (this) {
                  for (String key : toIndex) {
                    indexed.put(key, live);
                  }
                  indexed.values().removeIf(b -> b < oldestInWindow);
                }
              }
              return null;
            });
  }

  private record Delta(String key, long bucket) {}

  /** One key's deltas to one bucket: at most one in flight (frozen, with its field) and one not. */
  private static final class Pending {
    final Delta delta;
    BucketHistogram unsent;
    BucketHistogram inFlight;
    String field;
    byte[] bytes;
    boolean sending;

    Pending(Delta delta) {
      this.delta = delta;
    }

    long samples() {
      return (unsent == null ? 0 : unsent.count() + unsent.rejected())
          + (inFlight == null ? 0 : inFlight.count() + inFlight.rejected());
    }

    long bytes() {
      return 96
          + (unsent == null ? 0 : 64 + 12L * unsent.slotCount())
          + (inFlight == null ? 0 : 64 + 12L * inFlight.slotCount())
          + (bytes == null ? 0 : 16 + bytes.length);
    }
  }

  /**
   * A key's recorder dropped from the cache, drained in at least two rounds and for a second before
   * it is forgotten: a thread that looked it up just before may still be recording into it.
   */
  private static final class Retired {
    final String key;
    final BucketRecorder recorder;
    final long retiredAt;
    int drains;

    Retired(String key, BucketRecorder recorder, long retiredAt) {
      this.key = key;
      this.recorder = recorder;
      this.retiredAt = retiredAt;
    }
  }
}
