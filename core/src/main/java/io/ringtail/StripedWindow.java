package io.ringtail;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-process {@link RollingWindow}.
 *
 * <h2>Representation</h2>
 *
 * <ul>
 *   <li><b>Stripes</b>: each recording thread adds into one of a few padded stripes of a {@link
 *       StripedRecorder}, picked by its {@link io.ringtail.internal.Probe} (first its thread id). A
 *       stripe holds two dense accumulators (a count array in HdrHistogram's layout, see {@link
 *       BucketLayout}, plus sum, min, max and rejected): writers add into the active one while the
 *       other is drained. Under sustained contention the stripes double, up to the processors
 *       rounded up to a power of two.
 *   <li><b>Live bucket</b>: one dense accumulator, guarded by the window lock, into which the
 *       stripes are drained by every snapshot and rotation.
 *   <li><b>SealedBucket buckets</b>: when time moves into a new bucket the live bucket is sealed
 *       into a compact list of the slots it saw (varint-coded, two to three bytes each), kept in a
 *       FIFO of at most {@code buckets} entries. An entry's array is reused while it is big enough
 *       and at most 1.5 times what the bucket now needs, and replaced by one an eighth larger than
 *       needed otherwise, so memory follows what the buckets hold now (it does not ratchet up to
 *       the largest bucket ever seen) and steady traffic rotates without allocating.
 *   <li><b>Window total</b>: one dense array holding the sum of the sealed buckets; a bucket is
 *       added when sealed and subtracted when it leaves the window. A snapshot is total plus live
 *       bucket, whatever the number of buckets or samples.
 *   <li><b>Retired totals</b>: count, sum and rejected of every bucket ever sealed (or dropped
 *       unsealed after an idle gap), added at rotation; a snapshot's {@link WindowTotals} are these
 *       plus the live bucket, so recording pays nothing for them.
 * </ul>
 *
 * <h2>Concurrency</h2>
 *
 * The record and drain protocol is {@link StripedRecorder}'s (numbered there). On top of it:
 *
 * <ul>
 *   <li>A sample beyond its stripe's share of the sum's headroom is decided exactly under the lock:
 *       accepted, or rejected and counted if the window's sum cannot take it.
 *   <li>A reading more than one bucket ahead of the time source is rejected and counted, and moves
 *       nothing. Only a record that would rotate reads the time source to check it.
 *   <li>Rotation is lazy. The first record or snapshot whose reading lies past the live bucket
 *       drains the stripes, seals the live bucket and evicts buckets that left the window. A writer
 *       only tries the lock: if another thread holds it, the writer records without waiting and its
 *       sample joins the bucket that thread is filling. The rotating writer waits, in the flip,
 *       only for records already in flight.
 *   <li>After an idle gap of a whole window or more everything has expired: the total is cleared in
 *       one pass rather than bucket by bucket, so catch-up never loops over the gap.
 *   <li>A reading earlier than the live bucket (a late writer, or a time source that steps
 *       backwards) records into the live bucket and never rotates backwards.
 * </ul>
 */
final class StripedWindow implements RollingWindow {
  private final WindowConfig config;
  private final TimeSource timeSource;
  private final BucketLayout layout;
  private final long width;
  private final int bucketCount;
  private final long highest;

  /** Start of the window's first bucket, where its cumulative histogram starts. */
  private final long origin;

  /** The absolute index of the window's first bucket, {@code floor(origin / width)}. */
  private final long originBucket;

  /** The stripes, their accumulators' sum shares and their growth. */
  private final StripedRecorder recorder;

  /** Start of the live bucket; with the stripes, the only shared fields a record reads. */
  private volatile long liveStart;

  /** The latest {@link #recentSnapshot()}, tagged with the live bucket it was taken in. */
  private volatile Recent recent;

  private final ReentrantLock lock = new ReentrantLock();

  // guarded by lock
  /** The live bucket's epoch: buckets since {@link #origin}. */
  private long liveEpoch;

  private final Accumulator live;
  private final long[] total;
  private long totalSum;
  private long totalRejected;
  private long retiredCount;
  private double retiredSum;
  private long retiredRejected;

  /**
   * Per-slot counts of every retired bucket, with their min and max; null unless the config keeps a
   * cumulative histogram.
   */
  private final long[] retiredCounts;

  private long retiredMin = Long.MAX_VALUE;
  private long retiredMax = Long.MIN_VALUE;

  private final SealedBucket[] sealed;
  private int sealedHead;
  private int sealedSize;

  StripedWindow(WindowConfig config, TimeSource timeSource) {
    this(config, timeSource, StripedRecorder.GROWTH_BOUND);
  }

  /** A window whose stripes may grow to {@code growthBound} (or its configured count, if more). */
  StripedWindow(WindowConfig config, TimeSource timeSource, int growthBound) {
    this.config = config;
    this.timeSource = timeSource;
    this.layout = BucketLayout.of(config);
    this.width = config.bucketWidthNanos();
    this.bucketCount = config.buckets();
    this.highest = config.highestTrackableValue();
    long now = timeSource.nanoTime();
    this.origin = now - Math.floorMod(now, width);
    this.originBucket = Math.floorDiv(now, width);
    this.liveStart = origin;
    this.liveEpoch = 0;
    this.live = new Accumulator(layout.length());
    this.total = new long[layout.length()];
    this.retiredCounts = config.cumulativeHistogram() ? new long[layout.length()] : null;
    this.sealed = new SealedBucket[bucketCount];
    this.recorder = StripedRecorder.sharingHeadroom(layout, config.stripes(), growthBound);
  }

  @Override
  public void record(long value) {
    recordAt(value, timeSource.nanoTime());
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    boolean inRange = value >= 0 && value <= highest;
    if (timeNanos - liveStart >= width) {
      if (timeNanos - timeSource.nanoTime() > width) {
        inRange = false;
      } else {
        tryAdvance(timeNanos);
      }
    }
    if (recorder.record(value, inRange) == Accumulator.OVER_LIMIT) {
      recordNearSumLimit(value);
    }
  }

  /**
   * A sample its stripe's share of the sum's headroom cannot take: decided exactly under the lock,
   * with every stripe drained and its share released first, then the shares handed out again.
   * Reached only when the window's sum nears {@link Long#MAX_VALUE}.
   */
  private void recordNearSumLimit(long value) {
    lock.lock();
    try {
      recorder.drainReleasingShares(live);
      if (value <= headroom()) {
        live.addLocked(layout.indexOf(value), value);
      } else {
        live.rejected++;
      }
      recorder.grantShares(headroom());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public HistogramSnapshot snapshot() {
    long now = timeSource.nanoTime();
    lock.lock();
    try {
      boolean rotated = advanceLocked(now);
      drain();
      recorder.growIfContended(rotated, headroom());
      long start = origin + (liveEpoch - bucketCount + 1) * width;
      long end = now - liveStart < 0 ? liveStart : now;
      long rejected = totalRejected + live.rejected;
      long min = live.min;
      long max = live.max;
      for (int k = 0; k < sealedSize; k++) {
        SealedBucket s = sealed[(sealedHead + k) % bucketCount];
        min = Math.min(min, s.min);
        max = Math.max(max, s.max);
      }
      if (max < min) {
        return SnapshotBuilder.empty(layout, rejected, start, end, totals(0));
      }
      return SnapshotBuilder.ofDense(
          layout,
          total,
          live.counts,
          layout.indexOf(min),
          layout.indexOf(max),
          new SnapshotFields(
              totalSum + live.sum, min, max, rejected, start, end, totals(live.count)));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<CumulativeHistogram> cumulativeHistogram() {
    if (retiredCounts == null) {
      return Optional.empty();
    }
    long now = timeSource.nanoTime();
    lock.lock();
    try {
      recorder.growIfContended(advanceLocked(now), headroom());
      drain();
      long min = Math.min(retiredMin, live.min);
      long max = Math.max(retiredMax, live.max);
      long end = now - liveStart < 0 ? liveStart : now;
      WindowTotals totals = totals(live.count);
      SnapshotFields fields = new SnapshotFields(0, min, max, 0, origin, end, totals);
      HistogramSnapshot counts =
          max < min
              ? SnapshotBuilder.empty(layout, 0, origin, end, totals)
              : SnapshotBuilder.ofDense(
                  layout,
                  retiredCounts,
                  live.counts,
                  layout.indexOf(min),
                  layout.indexOf(max),
                  fields);
      return Optional.of(
          new CumulativeHistogram(counts, totals, config.significantDigits(), origin, end));
    } finally {
      lock.unlock();
    }
  }

  /**
   * The retired totals plus the live bucket, which holds {@code liveCount} samples; under the lock.
   */
  private WindowTotals totals(long liveCount) {
    return new WindowTotals(
        retiredCount + liveCount, retiredSum + live.sum, retiredRejected + live.rejected);
  }

  /**
   * The snapshot taken at the first call after the window last rotated, shared by every call until
   * it rotates again: a volatile read and a compare when current, no allocation.
   */
  @Override
  public WindowSnapshot recentSnapshot() {
    Recent r = recent;
    if (r != null && r.liveStart == liveStart) {
      return r.snapshot;
    }
    if (r != null && !lock.tryLock()) {
      return r.snapshot;
    }
    if (r == null) {
      lock.lock();
    }
    try {
      r = recent;
      if (r == null || r.liveStart != liveStart) {
        HistogramSnapshot taken = snapshot();
        r = new Recent(taken, liveStart);
        recent = r;
      }
      return r.snapshot;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A snapshot kept for {@link #recentSnapshot()}, and the start of the live bucket it was taken
   * in.
   */
  private record Recent(HistogramSnapshot snapshot, long liveStart) {
    static final long BYTES = 24;
  }

  @Override
  public Duration length() {
    return config.length();
  }

  WindowConfig config() {
    return config;
  }

  /** Stripes in use now; grows under contention up to a bound tied to the processor count. */
  int stripeCount() {
    return recorder.stripeCount();
  }

  @Override
  public TimeSource timeSource() {
    return timeSource;
  }

  @Override
  public long footprintBytes() {
    long arrayHeader = 16;
    long denseArray = arrayHeader + 8L * layout.length();
    long bytes = 160 /* this object, lock */ + arrayHeader + 4L * sealed.length;
    lock.lock();
    try {
      bytes += recorder.footprintBytes(denseArray);
      bytes += Accumulator.BYTES + (retiredCounts == null ? 2 : 3) * denseArray;
      for (SealedBucket s : sealed) {
        if (s != null) {
          bytes += SealedBucket.BYTES + arrayHeader + s.data.length;
        }
      }
      Recent r = recent;
      if (r != null) {
        bytes += Recent.BYTES + r.snapshot.footprintBytes();
      }
    } finally {
      lock.unlock();
    }
    return bytes;
  }

  private void tryAdvance(long now) {
    if (lock.tryLock()) {
      try {
        recorder.growIfContended(advanceLocked(now), headroom());
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Rotates to the bucket {@code now} falls in, if later than the live one; returns whether it did.
   */
  private boolean advanceLocked(long now) {
    long epoch = Math.floorDiv(now - origin, width);
    if (epoch <= liveEpoch) {
      return false;
    }
    drain();
    long oldestKept = epoch - bucketCount + 1;
    if (liveEpoch >= oldestKept) {
      seal(liveEpoch);
      while (sealedSize > 0 && sealed[sealedHead].bucket < bucketIndex(oldestKept)) {
        evictOldest();
      }
    } else {
      retireCounts();
      retire(live.countBetween(layout), live.sum, live.rejected);
      Arrays.fill(total, 0L);
      totalSum = 0;
      totalRejected = 0;
      sealedSize = 0;
    }
    live.clear(layout);
    liveEpoch = epoch;
    liveStart = origin + epoch * width;
    return true;
  }

  /** Doubles the stripes up to the bound, as contention would. */
  void growStripesNow() {
    lock.lock();
    try {
      recorder.grow(headroom());
    } finally {
      lock.unlock();
    }
  }

  /**
   * The sum the window can still take: {@code Long.MAX_VALUE} less what it holds; under the lock.
   */
  private long headroom() {
    return Long.MAX_VALUE - totalSum - live.sum;
  }

  /** Moves everything the stripes hold into the live bucket, handing out fresh shares. */
  private void drain() {
    recorder.drainInto(live, Long.MAX_VALUE - totalSum);
  }

  /**
   * The absolute index of the bucket {@code epoch} buckets after the origin's: epochs count from
   * the window's first bucket, so that they keep ascending when the time source wraps past {@code
   * Long.MAX_VALUE}; a {@link SealedBucket} holds the absolute index.
   */
  private long bucketIndex(long epoch) {
    return originBucket + epoch;
  }

  /** Seals the live bucket, of {@code epoch}, unless it is empty. */
  private void seal(long epoch) {
    if (live.isEmpty()) {
      return;
    }
    SealedBucket bucket = sealed[(sealedHead + sealedSize) % bucketCount];
    if (bucket == null) {
      bucket = new SealedBucket();
      sealed[(sealedHead + sealedSize) % bucketCount] = bucket;
    }
    long count = bucket.encode(bucketIndex(epoch), live, layout);
    retireCounts();
    retire(count, live.sum, live.rejected);
    bucket.addTo(total, 1);
    totalSum += bucket.sum;
    totalRejected += bucket.rejected;
    sealedSize++;
  }

  /** Adds the live bucket's slots to the cumulative histogram, if kept; under the lock. */
  private void retireCounts() {
    if (retiredCounts != null && live.max != Long.MIN_VALUE) {
      long[] counts = live.counts;
      for (int i = layout.indexOf(live.min), last = layout.indexOf(live.max); i <= last; i++) {
        retiredCounts[i] += counts[i];
      }
      retiredMin = Math.min(retiredMin, live.min);
      retiredMax = Math.max(retiredMax, live.max);
    }
  }

  /** Adds a bucket leaving the live position to the totals since creation. */
  private void retire(long count, long sum, long rejected) {
    retiredCount += count;
    retiredSum += sum;
    retiredRejected += rejected;
  }

  private void evictOldest() {
    SealedBucket bucket = sealed[sealedHead];
    bucket.addTo(total, -1);
    totalSum -= bucket.sum;
    totalRejected -= bucket.rejected;
    sealedHead = (sealedHead + 1) % bucketCount;
    sealedSize--;
  }
}
