package io.ringtail.redis;

import com.github.benmanes.caffeine.cache.Cache;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowTotals;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The publication side of one fleet histogram window ({@link RedisKeyedHistogramWindows}, and
 * through it {@link RedisHistogramWindow}): in each round of the backend's {@link FleetPublisher}
 * it drains every key's recorder (and those of keys just dropped) and sends, per group of keys
 * ({@link FleetKeys}), one batch of every key's new deltas as one inbox field ({@code HSET}; a
 * {@code PEXPIRE} of the inbox every quarter window), plus a try for the group's merger lease while
 * it holds none. Then it merges the groups it holds the lease of ({@link FleetMerger}).
 *
 * <p>A group has at most one batch in flight, frozen with its field name ({@code
 * <process>:<sequence>}) and bytes; new samples collect meanwhile, and the next batch goes only
 * once Redis answered for this one. So a retried batch keeps its field and never counts twice, and
 * a process's fields land in sequence order (what the merger's duplicate check relies on). What an
 * outage makes wait is bounded by {@code maxPendingDeltas} (one key's delta to one bucket each);
 * what leaves the window or the bound is counted. Thread-safe: rounds and readers of its state hold
 * its lock.
 */
final class KeyedDeltaPublisher implements FleetPublisher.Source {
  /**
   * Deltas that do not come from a key's recorder: a fleet service level's counts, which it keeps
   * in its own stripes and hands out per bucket. Called at every collection, under the publisher's
   * lock; it must not call back into the publisher.
   */
  interface Feed {
    /** Hands {@code sink} every delta (key, bucket histogram) gathered since the last call. */
    void drainInto(long now, java.util.function.BiConsumer<String, BucketHistogram> sink);
  }

  private volatile Feed feed;

  /** How long a dropped key's recorder is still drained: longer than any record takes. */
  private static final long RETIRED_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ScriptRunner runner;
  private final FleetKeys keys;
  private final FleetMerger merger;
  private final FleetLeases leases;
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
  private final GroupBatch[] groups = new GroupBatch[FleetKeys.GROUPS];

  /** What this process drained per key since it started to hold it: its counters' totals. */
  private final Map<String, WindowTotals> totals = new HashMap<>();

  /** Each held key's latest bucket with samples, as drained (or when first seen). */
  private final Map<String, Long> lastActive = new HashMap<>();

  private long sequence;

  /** When (local clock) this process last sent a batch to each group; 0: never. */
  private final long[] lastSent = new long[FleetKeys.GROUPS];

  private final long windowNanos;

  /** This process's marker field in every inbox ({@link FleetMerger#MARKER}). */
  private final String marker;

  private final LongAdder published = new LongAdder();
  private final LongAdder publishedBytes = new LongAdder();
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
      FleetMerger merger,
      FleetLeases leases,
      TimeSource time,
      WindowConfig config,
      Cache<String, BucketRecorder> recorders,
      String publisherId,
      long intervalNanos,
      int maxPendingDeltas,
      long graceMillis) {
    this.runner = runner;
    this.keys = keys;
    this.merger = merger;
    this.leases = leases;
    this.time = time;
    this.recorders = recorders;
    this.publisherId = publisherId;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.windowNanos = config.length().toNanos();
    this.marker = FleetMerger.MARKER + publisherId;
    this.intervalNanos = intervalNanos;
    this.maxPendingDeltas = maxPendingDeltas;
    this.graceMillis = graceMillis;
    for (int g = 0; g < groups.length; g++) {
      groups[g] = new GroupBatch(g);
    }
  }

  @Override
  public long intervalNanos() {
    return intervalNanos;
  }

  /** Takes deltas from {@code feed} too, at every collection. */
  void feed(Feed feed) {
    this.feed = feed;
  }

  /** A key's recorder dropped from the cache: drained for a second more, then forgotten. */
  void retire(String key, BucketRecorder recorder) {
    retired.add(new Retired(key, recorder, localClock.nanoTime()));
  }

  /** Heap held by the deltas waiting for Redis. */
  synchronized long footprintBytes() {
    long bytes = 0;
    for (GroupBatch g : groups) {
      bytes += g.bytes();
    }
    return bytes;
  }

  /** What a flush still waits for: deltas not answered, and groups it sent to not yet merged. */
  synchronized int flushPending() {
    return pendingDeltas() + merger.unmergedGroups();
  }

  /** Deltas (one key, one bucket) waiting for Redis: collecting or in flight. */
  synchronized int pendingDeltas() {
    int n = 0;
    for (GroupBatch g : groups) {
      n += g.deltas();
    }
    return n;
  }

  /**
   * What happened to this process's samples so far: a pending "bucket" is one key's delta to one
   * bucket, a publish call one batch's {@code HSET} (and now and then {@code PEXPIRE}), answered.
   */
  RedisHistogramWindowStats stats() {
    long samples = 0;
    int deltas = 0;
    synchronized (this) {
      for (GroupBatch g : groups) {
        samples += g.samples();
        deltas += g.deltas();
      }
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
        runner.scriptReloads.sum(),
        publishedBytes.sum());
  }

  @Override
  public synchronized void collect() {
    collectLocked(time.nanoTime());
  }

  @Override
  public void midpoint() {
    collect();
    leases.renew();
  }

  @Override
  public void publish(List<CompletableFuture<?>> calls, FleetPublisher.Round round) {
    List<CompletableFuture<Boolean>> sent = new ArrayList<>(groups.length);
    for (int g = 0; g < groups.length; g++) {
      sent.add(null);
    }
    synchronized (this) {
      long now = time.nanoTime();
      long live = Math.floorDiv(now, widthNanos);
      collectLocked(now);
      // a ticker holds the live bucket back until it closes: one delta per key and bucket
      boolean holdLive = round == FleetPublisher.Round.TICK && intervalNanos >= widthNanos;
      List<GroupBatch> toSend = new ArrayList<>();
      for (GroupBatch g : groups) {
        if (g.sending) {
          continue;
        }
        if (g.inFlight == null) {
          g.freeze(
              holdLive ? live : Long.MAX_VALUE,
              now,
              () -> publisherId + ":" + Long.toString(++sequence, 36));
        }
        if (g.inFlight != null) {
          g.sending = true;
          toSend.add(g);
        }
      }
      // a reply may complete its call at once, taking the lock: send after the loop
      for (GroupBatch g : toSend) {
        sent.set(g.index, send(g, now));
        calls.add(sent.get(g.index));
      }
    }
    if (round == FleetPublisher.Round.TICK) {
      leases.renew();
    }
    long local = localClock.nanoTime();
    for (int g = 0; g < groups.length; g++) {
      if (sent.get(g) != null) {
        lastSent[g] = local;
      }
      CompletableFuture<Boolean> before = sent.get(g);
      if (before == null
          && round == FleetPublisher.Round.TICK
          && !leases.holds(g)
          && lastSent[g] != 0
          && local - lastSent[g] < windowNanos) {
        // this process's batches may wait in a group nobody merges (its merger died, nobody
        // publishes there any more): it keeps trying for the lease while they are in the window
        before = leases.tryLease(g);
      }
      boolean flushing =
          round == FleetPublisher.Round.FLUSH && (sent.get(g) != null || merger.unmerged(g));
      if (before != null || leases.holds(g) || flushing) {
        // a lease taken by this round's send is known once the send is answered
        calls.add(
            merger.mergeAfter(
                g,
                before == null ? CompletableFuture.completedFuture(true) : before,
                flushing,
                // a tick or a flush also writes a due summary again; a read does not
                round != FleetPublisher.Round.READ));
      }
    }
  }

  /**
   * Drains every key's recorder (and those of keys just dropped) into the groups' collecting
   * deltas, expires what left the window and drops the oldest beyond the bound; holding the lock.
   */
  private void collectLocked(long now) {
    long live = Math.floorDiv(now, widthNanos);
    long oldestInWindow = live - buckets + 1;
    for (Map.Entry<String, BucketRecorder> e : recorders.asMap().entrySet()) {
      List<BucketHistogram> drained = e.getValue().drain();
      take(e.getKey(), drained);
      dropIfIdle(e.getKey(), e.getValue(), drained, live);
    }
    Feed f = feed;
    if (f != null) {
      f.drainInto(now, (key, delta) -> take(key, List.of(delta)));
    }
    lastActive.keySet().removeIf(key -> !recorders.asMap().containsKey(key));
    if (totals.size() > lastActive.size() + retired.size()) {
      totals.keySet().removeIf(key -> !lastActive.containsKey(key) && !retiring(key));
    }
    // a dropped key's recorder is drained for a second more, in case a record was under way
    long local = localClock.nanoTime();
    for (Iterator<Retired> it = retired.iterator(); it.hasNext(); ) {
      Retired r = it.next();
      take(r.key, r.recorder.drain());
      if (++r.drains >= 2 && local - r.retiredAt >= RETIRED_NANOS) {
        it.remove();
      }
    }
    int deltas = 0;
    for (GroupBatch g : groups) {
      expired.add(g.expire(oldestInWindow));
      deltas += g.deltas();
    }
    while (deltas > maxPendingDeltas) {
      GroupBatch oldest = null;
      long oldestBucket = Long.MAX_VALUE;
      for (GroupBatch g : groups) {
        long b = g.oldestUnsentBucket();
        if (b < oldestBucket) {
          oldestBucket = b;
          oldest = g;
        }
      }
      if (oldest == null) {
        break;
      }
      dropped.add(oldest.dropOldestUnsent());
      deltas--;
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
    if (drained.isEmpty()) {
      return;
    }
    GroupBatch g = groups[FleetKeys.group(key)];
    for (BucketHistogram d : drained) {
      g.take(key, d);
      totals.merge(key, new WindowTotals(d.count(), d.sum(), d.rejected()), WindowTotals::plus);
    }
  }

  private boolean retiring(String key) {
    for (Retired r : retired) {
      if (r.key.equals(key)) {
        return true;
      }
    }
    return false;
  }

  /** What this process drained per key since it started to hold each, as of now. */
  synchronized Map<String, WindowTotals> totals() {
    return Map.copyOf(totals);
  }

  /** What this process drained for {@code key} since it started to hold it; null if nothing. */
  synchronized WindowTotals totals(String key) {
    return totals.get(key);
  }

  /**
   * One batch: {@code HSET} of its field, {@code PEXPIRE} of the inbox, and a try for the lease
   * while this process holds none. Called holding the lock.
   */
  private CompletableFuture<Boolean> send(GroupBatch g, long now) {
    String inbox = keys.inbox(g.index);
    long count = g.inFlightSamples;
    int batchBytes = g.bytes.length;
    // the inbox's TTL outlives the window by a quarter window: renewed that often, not per batch
    long local = localClock.nanoTime();
    boolean renewTtl = g.ttlRenewedAt == 0 || local - g.ttlRenewedAt >= windowNanos / 4;
    // the batch, and this process's marker: a merge deletes every marker, so finding its own
    // gone tells a process that a merger ran since its last batch, and it need not try for the
    // lease (HSET answers how many of the two fields were new)
    CommandArgs<String, String> hset =
        new CommandArgs<>(StringCodec.UTF8)
            .addKey(inbox)
            .add(g.field)
            .add(g.bytes)
            .add(marker)
            .add("1");
    boolean retry = g.attempts++ > 0;
    boolean firstInGroup = lastSent[g.index] == 0;
    // in strict mode the last write's confirmation covers both; a batch the replicas did not
    // confirm stays pending and is sent again (same field)
    CompletableFuture<List<Object>> set =
        runner.call(
            renewTtl
                ? RedisCall.command(CommandType.HSET, hset)
                : RedisCall.write(CommandType.HSET, hset, inbox));
    CompletableFuture<List<Object>> expire = CompletableFuture.completedFuture(null);
    if (renewTtl) {
      long ttlMillis = (buckets * widthNanos + windowNanos / 4) / 1_000_000L + graceMillis;
      expire =
          runner.call(
              RedisCall.write(
                  CommandType.PEXPIRE,
                  new CommandArgs<>(StringCodec.UTF8).addKey(inbox).add(ttlMillis),
                  inbox));
    }
    // once the batch is answered, this process knows whether it merges: it tries for the lease
    // unless it holds it or saw a merger at work (a retry, whose reply is ambiguous, always tries)
    CompletableFuture<Boolean> lease =
        set.handle((reply, error) -> reply)
            .thenCompose(
                reply -> {
                  boolean mergerSeen =
                      reply != null
                          && !retry
                          && !firstInGroup
                          && Long.valueOf(2).equals(reply.get(0));
                  // a batch Redis did not answer tries nothing more: Redis is likely away
                  return reply == null || leases.holds(g.index) || mergerSeen
                      ? CompletableFuture.completedFuture(true)
                      : leases.tryLease(g.index);
                });
    return set.thenCombine(expire, (reply, ignored) -> reply)
        .thenCombine(lease, (reply, ignored) -> reply)
        .handle(
            (reply, error) -> {
              synchronized (this) {
                g.sending = false;
                if (error == null) {
                  if (renewTtl) {
                    g.ttlRenewedAt = local;
                  }
                  publishCalls.increment();
                  if (retry && Long.valueOf(0).equals(reply.get(0))) {
                    retriedDuplicates.increment(); // the batch and the marker were there
                  }
                  published.add(count);
                  if (!(retry && Long.valueOf(0).equals(reply.get(0)))) {
                    publishedBytes.add(batchBytes);
                  }
                  g.answered();
                  // a flush merges this group even if a tick sent the batch
                  merger.sent(g.index);
                } else {
                  failedCalls.increment();
                }
              }
              return error == null;
            });
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
