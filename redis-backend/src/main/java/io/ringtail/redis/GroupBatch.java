package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One group's side of a {@link KeyedDeltaPublisher}: the deltas collecting (one per key and
 * bucket), and at most one batch in flight, frozen with its field and bytes so that a retry sends
 * the same. Not thread-safe: the publisher holds its lock.
 */
final class GroupBatch {
  private record Delta(String key, long bucket) {}

  final int index;
  final Map<Delta, BucketHistogram> unsent = new HashMap<>();
  List<FleetCodec.BucketHistogramOfKey> inFlight;
  long inFlightSamples;
  String field;
  byte[] bytes;
  long asOf;
  boolean sending;

  /** When (local clock) this process last set the inbox's TTL; 0: never. */
  long ttlRenewedAt;

  /** Sends of the batch in flight so far. */
  int attempts;

  GroupBatch(int index) {
    this.index = index;
  }

  /**
   * Freezes every collecting delta of a bucket before {@code holdFrom} into a batch named {@code
   * field}, as of {@code now}; returns whether there was one.
   */
  boolean freeze(long holdFrom, long now, java.util.function.Supplier<String> field) {
    List<FleetCodec.BucketHistogramOfKey> batch = new ArrayList<>();
    long samples = 0;
    for (Iterator<Map.Entry<Delta, BucketHistogram>> it = unsent.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Delta, BucketHistogram> e = it.next();
      if (e.getKey().bucket < holdFrom) {
        batch.add(new FleetCodec.BucketHistogramOfKey(e.getKey().key, e.getValue()));
        samples += e.getValue().count() + e.getValue().rejected();
        it.remove();
      }
    }
    if (batch.isEmpty()) {
      return false;
    }
    inFlight = batch;
    inFlightSamples = samples;
    this.field = field.get();
    attempts = 0;
    asOf = now;
    bytes = new FleetCodec.Batch(now, batch).encode();
    return true;
  }

  /** Collects a drained delta of {@code key}. */
  void take(String key, BucketHistogram d) {
    unsent.merge(new Delta(key, d.bucket()), d, BucketHistogram::plus);
  }

  /** Redis answered for the batch in flight: it is done. */
  void answered() {
    inFlight = null;
    bytes = null;
    inFlightSamples = 0;
  }

  /** Drops what left the window; returns the samples dropped. */
  long expire(long oldestInWindow) {
    long gone = 0;
    for (Iterator<Map.Entry<Delta, BucketHistogram>> it = unsent.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Delta, BucketHistogram> e = it.next();
      if (e.getKey().bucket < oldestInWindow) {
        gone += e.getValue().count() + e.getValue().rejected();
        it.remove();
      }
    }
    if (inFlight != null && !sending) {
      boolean allGone = true;
      for (FleetCodec.BucketHistogramOfKey e : inFlight) {
        allGone &= e.histogram().bucket() < oldestInWindow;
      }
      if (allGone) { // a batch no snapshot would read any more: not sent again
        gone += inFlightSamples;
        answered();
      }
    }
    return gone;
  }

  /** The oldest bucket of a delta that may be dropped: collecting, or in a batch not being sent. */
  long oldestUnsentBucket() {
    long oldest = Long.MAX_VALUE;
    for (Delta d : unsent.keySet()) {
      oldest = Math.min(oldest, d.bucket);
    }
    if (inFlight != null && !sending) {
      for (FleetCodec.BucketHistogramOfKey e : inFlight) {
        oldest = Math.min(oldest, e.histogram().bucket());
      }
    }
    return oldest;
  }

  /**
   * Drops the oldest delta that may be dropped; returns its samples. One in a batch waiting to be
   * sent again leaves the batch (its field stays, so a first call that did land still counts once;
   * a delta dropped while in doubt may so have reached Redis).
   */
  long dropOldestUnsent() {
    long oldest = oldestUnsentBucket();
    for (Iterator<Map.Entry<Delta, BucketHistogram>> it = unsent.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Delta, BucketHistogram> e = it.next();
      if (e.getKey().bucket == oldest) {
        it.remove();
        return e.getValue().count() + e.getValue().rejected();
      }
    }
    for (Iterator<FleetCodec.BucketHistogramOfKey> it = inFlight.iterator(); it.hasNext(); ) {
      BucketHistogram h = it.next().histogram();
      if (h.bucket() == oldest) {
        it.remove();
        long n = h.count() + h.rejected();
        inFlightSamples -= n;
        if (inFlight.isEmpty()) {
          inFlight = null;
          bytes = null;
        } else {
          bytes = new FleetCodec.Batch(asOf, inFlight).encode();
        }
        return n;
      }
    }
    return 0;
  }

  int deltas() {
    return unsent.size() + (inFlight == null ? 0 : inFlight.size());
  }

  long samples() {
    long n = inFlightSamples;
    for (BucketHistogram h : unsent.values()) {
      n += h.count() + h.rejected();
    }
    return n;
  }

  long bytes() {
    long n = 64 + (bytes == null ? 0 : 16 + bytes.length);
    for (BucketHistogram h : unsent.values()) {
      n += 96 + 12L * h.slotCount();
    }
    if (inFlight != null) {
      for (FleetCodec.BucketHistogramOfKey e : inFlight) {
        n += 64 + 12L * e.histogram().slotCount();
      }
    }
    return n;
  }
}
