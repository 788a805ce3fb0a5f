package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.TimeSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Moves what a {@link BucketRecorder} holds into the fleet's merged buckets in Redis, each sample
 * exactly once however often a call is retried.
 *
 * <h2>Protocol</h2>
 *
 * <ol>
 *   <li>A publication round drains the recorder and adds each bucket's new samples to that bucket's
 *       <em>unsent</em> delta in memory.
 *   <li>Per bucket at most one delta is <em>in flight</em>. When none is, the unsent delta is
 *       frozen, given the publisher's next sequence number (rising across all buckets) and sent;
 *       the publish script adds it to the bucket only if the number stored there for this publisher
 *       is lower, and stores the new number, in one atomic step.
 *   <li>A call that fails or times out leaves its delta in flight, unchanged, and the next round
 *       sends it again with the same number: if the first call did reach Redis, the script answers
 *       "already applied" and adds nothing. Only an answer from Redis clears the delta. New samples
 *       meanwhile collect in the unsent delta.
 *   <li>Memory is bounded: at most two deltas per bucket, at most {@code maxPendingBuckets} buckets
 *       (the oldest beyond that is dropped and counted), and a bucket that has left the window is
 *       discarded and counted as expired, since no snapshot would read it.
 * </ol>
 *
 * At most one round runs at a time. Thread-safe; rounds complete on Lettuce's threads.
 */
final class HistogramPublisher {
  private final ScriptRunner runner;
  private final BucketRecorder recorder;
  private final HistogramKeys keys;
  private final String publisherId;
  private final TimeSource time;
  private final ServerTimeBase serverTime;
  private final long widthNanos;
  private final int buckets;
  private final int maxPendingBuckets;
  private final long graceMillis;

  // guarded by this
  private final TreeMap<Long, Pending> pending = new TreeMap<>();
  private CompletableFuture<Void> round = CompletableFuture.completedFuture(null);

  /**
   * Last sequence number given out: one counter for all buckets, so a bucket's numbers keep rising.
   */
  private long sequence;

  final LongAdder published = new LongAdder();
  final LongAdder publishCalls = new LongAdder();
  final LongAdder retriedDuplicates = new LongAdder();
  final LongAdder failedCalls = new LongAdder();
  final LongAdder expired = new LongAdder();
  final LongAdder dropped = new LongAdder();

  HistogramPublisher(
      ScriptRunner runner,
      BucketRecorder recorder,
      HistogramKeys keys,
      String publisherId,
      TimeSource time,
      ServerTimeBase serverTime,
      int maxPendingBuckets) {
    this.runner = runner;
    this.recorder = recorder;
    this.keys = keys;
    this.publisherId = publisherId;
    this.time = time;
    this.serverTime = serverTime;
    this.widthNanos = recorder.config().bucketWidth().toNanos();
    this.buckets = recorder.config().buckets();
    this.maxPendingBuckets = maxPendingBuckets;
    // Redis counts a TTL on its own clock: past a time base it cannot vouch for, keep a window more
    this.graceMillis =
        serverTime != null ? 1_000 : Math.max(1_000, widthNanos * buckets / 1_000_000L);
  }

  /**
   * Starts a round unless one is running. Returns the round started, or null if one was already
   * running (its future then is {@link #running()}).
   */
  synchronized CompletableFuture<Void> tryStartRound() {
    if (!round.isDone()) {
      return null;
    }
    round = startRoundLocked();
    return round;
  }

  /**
   * Drains the recorder into the pending buckets without sending: what a tick does while a round is
   * still waiting for Redis, so that rotations keep finding their previous bucket drained and never
   * walk its slots on a recording thread.
   */
  synchronized void collect() {
    collectLocked(time.nanoTime());
  }

  /** The round running now (or the last one, completed). */
  synchronized CompletableFuture<Void> running() {
    return round;
  }

  private CompletableFuture<Void> startRoundLocked() {
    long now = time.nanoTime();
    collectLocked(now);
    long oldestInWindow = Math.floorDiv(now, widthNanos) - buckets + 1;
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (Pending p : new ArrayList<>(pending.values())) {
      if (p.sending) {
        continue;
      }
      if (p.inFlight == null && p.unsent != null) {
        p.inFlight = p.unsent;
        p.unsent = null;
        p.inFlightSeq = ++sequence;
        p.asOf = now;
      }
      if (p.inFlight != null) {
        p.sending = true;
        calls.add(send(p, now, oldestInWindow));
      }
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }

  private void collectLocked(long now) {
    for (BucketHistogram delta : recorder.drain()) {
      Pending p = pending.computeIfAbsent(delta.bucket(), Pending::new);
      p.unsent = p.unsent == null ? delta : p.unsent.plus(delta);
    }
    long oldestInWindow = Math.floorDiv(now, widthNanos) - buckets + 1;
    for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
      Pending p = it.next();
      if (p.bucket >= oldestInWindow) {
        break;
      }
      if (!p.sending) {
        expired.add(p.samples());
        it.remove();
      }
    }
    while (pending.size() > maxPendingBuckets) {
      Map.Entry<Long, Pending> oldest = pending.firstEntry();
      if (oldest.getValue().sending) {
        break;
      }
      dropped.add(oldest.getValue().samples());
      pending.pollFirstEntry();
    }
  }

  private CompletableFuture<Void> send(Pending p, long now, long oldestInWindow) {
    BucketHistogram d = p.inFlight;
    long ttlMillis =
        Math.max(1, ((p.bucket + buckets) * widthNanos - now) / 1_000_000L) + graceMillis;
    boolean empty = d.count() == 0;
    byte[][] args = {
      ascii(publisherId),
      ascii(p.inFlightSeq),
      ascii(p.asOf),
      ascii(ttlMillis),
      ascii(d.count()),
      ascii(d.sum()),
      ascii(empty ? 0 : d.min()),
      ascii(empty ? 0 : d.max()),
      ascii(d.rejected()),
      HistogramSlots.encode(d),
      ascii(p.bucket),
      ascii(oldestInWindow)
    };
    String[] bucketKeys = keys.bucket(p.bucket);
    String[] publishKeys = {
      bucketKeys[0], bucketKeys[1], keys.freshness(HistogramKeys.group(p.bucket))
    };
    long sent = serverTime == null ? 0 : serverTime.localNanoTime();
    return runner
        .call(RedisCall.script(HistogramScripts.PUBLISH, publishKeys, args))
        .handle(
            (reply, error) -> {
              long answered = serverTime == null ? 0 : serverTime.localNanoTime();
              synchronized (this) {
                p.sending = false;
                if (error == null) {
                  publishCalls.increment();
                  if ("0".equals(BinaryReply.text(reply.get(0)))) {
                    retriedDuplicates.increment();
                  }
                  published.add(d.count() + d.rejected());
                  p.inFlight = null;
                  if (p.unsent == null && pending.get(p.bucket) == p) {
                    pending.remove(p.bucket);
                  }
                } else {
                  failedCalls.increment();
                }
              }
              if (error == null && serverTime != null) {
                serverTime.adopt(
                    sent, answered, BinaryReply.text(reply.get(1)), BinaryReply.text(reply.get(2)));
              }
              return null;
            });
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] ascii(long v) {
    return ascii(Long.toString(v));
  }

  /** Samples recorded into pending deltas (not the recorder's undrained ones). */
  synchronized long pendingSamples() {
    long n = 0;
    for (Pending p : pending.values()) {
      n += p.samples();
    }
    return n;
  }

  synchronized int pendingBuckets() {
    return pending.size();
  }

  /** Heap held by pending deltas, roughly. */
  synchronized long pendingBytes() {
    long bytes = 0;
    for (Pending p : pending.values()) {
      bytes +=
          96
              + (p.unsent == null ? 0 : 64 + 12L * p.unsent.slotCount())
              + (p.inFlight == null ? 0 : 64 + 12L * p.inFlight.slotCount());
    }
    return bytes;
  }

  /** One bucket's deltas. */
  private static final class Pending {
    final long bucket;
    BucketHistogram unsent;
    BucketHistogram inFlight;
    long inFlightSeq;
    long asOf;
    boolean sending;

    Pending(long bucket) {
      this.bucket = bucket;
    }

    long samples() {
      return (unsent == null ? 0 : unsent.count() + unsent.rejected())
          + (inFlight == null ? 0 : inFlight.count() + inFlight.rejected());
    }
  }
}
