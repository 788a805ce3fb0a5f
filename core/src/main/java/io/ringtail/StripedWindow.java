package io.ringtail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * The in-process {@link RollingWindow}.
 *
 * <h2>Representation</h2>
 * <ul>
 *   <li><b>Stripes</b>: each recording thread adds into one of a few padded stripes, picked by
 *       thread id. A stripe holds two accumulators (a dense count array in HdrHistogram's layout,
 *       see {@link BucketLayout}, plus sum, min, max and rejected): writers add into the active
 *       one while the other is drained, as in HdrHistogram's {@code Recorder}.
 *   <li><b>Live bucket</b>: one dense accumulator, guarded by the window lock, into which the
 *       stripes are drained by every snapshot and rotation.
 *   <li><b>Sealed buckets</b>: when time moves into a new bucket the live bucket is sealed into a
 *       compact list of the slots it saw (varint-coded, two to three bytes each), kept in a FIFO of
 *       at most {@code buckets} entries whose arrays are reused, so steady-state rotation
 *       allocates nothing.
 *   <li><b>Window total</b>: one dense array holding the sum of the sealed buckets; a bucket is
 *       added when sealed and subtracted when it leaves the window. A snapshot is total plus live
 *       bucket, whatever the number of buckets or samples.
 *   <li><b>Retired totals</b>: count, sum and rejected of every bucket ever sealed (or dropped
 *       unsealed after an idle gap), added at rotation; a snapshot's {@link WindowTotals} are
 *       these plus the live bucket, so recording pays nothing for them.
 * </ul>
 *
 * <h2>Concurrency protocol</h2>
 * Built on HdrHistogram's {@link WriterReaderPhaser}, whose guarantees it inherits:
 * <ol>
 *   <li>A record enters its stripe's phaser, adds count, sum, min and max to the stripe's active
 *       accumulator, and exits: two uncontended atomic increments on the phaser, two atomic adds
 *       and two compares. It takes no lock, allocates nothing and never waits.
 *   <li>A drain (under the window lock) swaps the stripe's accumulators and flips the phaser,
 *       which returns once every record that could have seen the old accumulator has exited.
 *       The old accumulator is then read and zeroed by the drain alone. Each sample's count,
 *       sum, min and max therefore move together: nothing is lost, counted twice, or split.
 *   <li>Rotation is lazy. The first record or snapshot whose reading lies past the live bucket
 *       drains the stripes, seals the live bucket and evicts buckets that left the window. A
 *       writer only tries the lock: if another thread holds it, the writer records without
 *       waiting and its sample joins the bucket that thread is filling. The rotating writer
 *       waits, in the flip, only for records already in flight.
 *   <li>After an idle gap of a whole window or more everything has expired: the total is
 *       cleared in one pass rather than bucket by bucket, so catch-up never loops over the gap.
 *   <li>A reading earlier than the live bucket (a late writer, or a time source that steps
 *       backwards) records into the live bucket and never rotates backwards.
 * </ol>
 */
final class StripedWindow implements RollingWindow {
  private final WindowConfig config;
  private final TimeSource timeSource;
  private final BucketLayout layout;
  private final long width;
  private final int bucketCount;
  private final long highest;
  private final long origin;
  private final Stripe[] stripes;
  private final int stripeMask;

  /** Start of the live bucket; the only shared field a record reads besides its stripe. */
  private volatile long liveStart;

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock
  private long liveEpoch;
  private final Accumulator live;
  private final long[] total;
  private long totalSum;
  private long totalRejected;
  private long retiredCount;
  private double retiredSum;
  private long retiredRejected;
  private final Sealed[] sealed;
  private int sealedHead;
  private int sealedSize;

  StripedWindow(WindowConfig config, TimeSource timeSource) {
    this.config = config;
    this.timeSource = timeSource;
    this.layout = BucketLayout.of(config);
    this.width = config.bucketWidthNanos();
    this.bucketCount = config.buckets();
    this.highest = config.highestTrackableValue();
    long now = timeSource.nanoTime();
    this.origin = now - Math.floorMod(now, width);
    this.liveStart = origin;
    this.liveEpoch = 0;
    this.stripes = new Stripe[config.stripes()];
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new Stripe(layout.length());
    }
    this.stripeMask = stripes.length - 1;
    this.live = new Accumulator(layout.length());
    this.total = new long[layout.length()];
    this.sealed = new Sealed[bucketCount];
  }

  @Override
  public void record(long value) {
    recordAt(value, timeSource.nanoTime());
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    if (timeNanos - liveStart >= width) {
      tryAdvance(timeNanos);
    }
    Stripe stripe = stripes[(int) Thread.currentThread().getId() & stripeMask];
    long ticket = stripe.phaser.writerCriticalSectionEnter();
    try {
      Accumulator active = stripe.active;
      if (value >= 0 && value <= highest) {
        active.add(layout.indexOf(value), value);
      } else {
        active.reject();
      }
    } finally {
      stripe.phaser.writerCriticalSectionExit(ticket);
    }
  }

  @Override
  public HistogramSnapshot snapshot() {
    long now = timeSource.nanoTime();
    lock.lock();
    try {
      advanceLocked(now);
      drainStripes();
      long min = live.min;
      long max = live.max;
      for (int k = 0; k < sealedSize; k++) {
        Sealed s = sealed[(sealedHead + k) % bucketCount];
        min = Math.min(min, s.min);
        max = Math.max(max, s.max);
      }
      long start = origin + (liveEpoch - bucketCount + 1) * width;
      long end = now - liveStart < 0 ? liveStart : now;
      long rejected = totalRejected + live.rejected;
      if (max < min) {
        return HistogramSnapshot.empty(layout, rejected, start, end, totals(0));
      }
      int first = layout.indexOf(min);
      long[] counts = new long[layout.indexOf(max) - first + 1];
      long[] liveCounts = live.counts;
      long liveCount = 0;
      for (int k = 0; k < counts.length; k++) {
        liveCount += liveCounts[first + k];
        counts[k] = total[first + k] + liveCounts[first + k];
      }
      return new HistogramSnapshot(layout, first, counts, totalSum + live.sum, min, max, rejected,
          start, end, totals(liveCount));
    } finally {
      lock.unlock();
    }
  }

  /** The retired totals plus the live bucket, which holds {@code liveCount} samples; under the lock. */
  private WindowTotals totals(long liveCount) {
    return new WindowTotals(retiredCount + liveCount, retiredSum + live.sum,
        retiredRejected + live.rejected);
  }

  @Override
  public Duration length() {
    return config.length();
  }

  WindowConfig config() {
    return config;
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
    bytes += stripes.length * (Stripe.BYTES + 2 * (Accumulator.BYTES + denseArray));
    bytes += Accumulator.BYTES + 2 * denseArray;
    lock.lock();
    try {
      for (Sealed s : sealed) {
        if (s != null) {
          bytes += Sealed.BYTES + arrayHeader + s.data.length;
        }
      }
    } finally {
      lock.unlock();
    }
    return bytes;
  }

  private void tryAdvance(long now) {
    if (lock.tryLock()) {
      try {
        advanceLocked(now);
      } finally {
        lock.unlock();
      }
    }
  }

  private void advanceLocked(long now) {
    long epoch = Math.floorDiv(now - origin, width);
    if (epoch <= liveEpoch) {
      return;
    }
    drainStripes();
    long oldestKept = epoch - bucketCount + 1;
    if (liveEpoch >= oldestKept) {
      seal(liveEpoch);
      while (sealedSize > 0 && sealed[sealedHead].epoch < oldestKept) {
        evictOldest();
      }
    } else {
      retire(live.countBetween(layout), live.sum, live.rejected);
      Arrays.fill(total, 0L);
      totalSum = 0;
      totalRejected = 0;
      sealedSize = 0;
    }
    live.clear(layout);
    liveEpoch = epoch;
    liveStart = origin + epoch * width;
  }

  /** Moves everything the stripes hold into the live bucket. */
  private void drainStripes() {
    for (Stripe stripe : stripes) {
      stripe.phaser.readerLock();
      try {
        Accumulator drained = stripe.active;
        stripe.active = stripe.inactive;
        stripe.inactive = drained;
        stripe.phaser.flipPhase();
        live.takeAll(drained, layout);
      } finally {
        stripe.phaser.readerUnlock();
      }
    }
  }

  private void seal(long epoch) {
    if (live.isEmpty()) {
      return;
    }
    Sealed bucket = sealed[(sealedHead + sealedSize) % bucketCount];
    if (bucket == null) {
      bucket = new Sealed();
      sealed[(sealedHead + sealedSize) % bucketCount] = bucket;
    }
    bucket.reset(epoch);
    long[] counts = live.counts;
    long count = 0;
    if (live.max != Long.MIN_VALUE) {
      for (int i = layout.indexOf(live.min), last = layout.indexOf(live.max); i <= last; i++) {
        if (counts[i] != 0) {
          bucket.add(i, counts[i]);
          count += counts[i];
        }
      }
    }
    retire(count, live.sum, live.rejected);
    bucket.addTo(total, 1);
    bucket.sum = live.sum;
    bucket.rejected = live.rejected;
    bucket.min = live.min;
    bucket.max = live.max;
    totalSum += bucket.sum;
    totalRejected += bucket.rejected;
    sealedSize++;
  }

  /** Adds a bucket leaving the live position to the totals since creation. */
  private void retire(long count, long sum, long rejected) {
    retiredCount += count;
    retiredSum += sum;
    retiredRejected += rejected;
  }

  private void evictOldest() {
    Sealed bucket = sealed[sealedHead];
    bucket.addTo(total, -1);
    totalSum -= bucket.sum;
    totalRejected -= bucket.rejected;
    sealedHead = (sealedHead + 1) % bucketCount;
    sealedSize--;
  }

  /**
   * A completed bucket: the slots it saw, ascending, as unsigned LEB128 varints of
   * (gap since the previous slot, count): two to three bytes per distinct slot.
   */
  static final class Sealed {
    static final long BYTES = 64;

    long epoch;
    byte[] data = new byte[64];
    int size;
    private int lastIndex;
    long sum;
    long rejected;
    long min;
    long max;

    void reset(long epoch) {
      this.epoch = epoch;
      size = 0;
      lastIndex = -1;
      sum = 0;
      rejected = 0;
      min = Long.MAX_VALUE;
      max = Long.MIN_VALUE;
    }

    /** Appends a slot; indexes must ascend. */
    void add(int index, long count) {
      if (data.length - size < 2 * 10) {
        data = Arrays.copyOf(data, data.length * 2);
      }
      writeVarint(index - lastIndex - 1);
      writeVarint(count);
      lastIndex = index;
    }

    /** Adds (sign 1) or subtracts (sign -1) this bucket's counts into a dense array. */
    void addTo(long[] dense, int sign) {
      int pos = 0;
      int index = -1;
      while (pos < size) {
        long gap = 0;
        int shift = 0;
        byte b;
        do {
          b = data[pos++];
          gap |= (long) (b & 0x7f) << shift;
          shift += 7;
        } while (b < 0);
        long count = 0;
        shift = 0;
        do {
          b = data[pos++];
          count |= (long) (b & 0x7f) << shift;
          shift += 7;
        } while (b < 0);
        index += (int) gap + 1;
        dense[index] += sign * count;
      }
    }

    private void writeVarint(long v) {
      while ((v & ~0x7fL) != 0) {
        data[size++] = (byte) ((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      data[size++] = (byte) v;
    }
  }

  /**
   * Counts, sum, min, max and rejected of some samples. In a stripe, several writers may add at
   * once (atomically); the live bucket's instance is touched only under the window lock.
   */
  static final class Accumulator {
    static final long BYTES = 56;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle SUM;
    private static final VarHandle MIN;
    private static final VarHandle MAX;
    private static final VarHandle REJECTED;

    static {
      try {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        SUM = lookup.findVarHandle(Accumulator.class, "sum", long.class);
        MIN = lookup.findVarHandle(Accumulator.class, "min", long.class);
        MAX = lookup.findVarHandle(Accumulator.class, "max", long.class);
        REJECTED = lookup.findVarHandle(Accumulator.class, "rejected", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final long[] counts;
    long sum;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long rejected;

    Accumulator(int length) {
      this.counts = new long[length];
    }

    void add(int index, long value) {
      long seen = (long) MIN.getOpaque(this);
      while (value < seen && !MIN.weakCompareAndSet(this, seen, value)) {
        seen = (long) MIN.getOpaque(this);
      }
      seen = (long) MAX.getOpaque(this);
      while (value > seen && !MAX.weakCompareAndSet(this, seen, value)) {
        seen = (long) MAX.getOpaque(this);
      }
      SUM.getAndAdd(this, value);
      LONGS.getAndAdd(counts, index, 1L);
    }

    void reject() {
      REJECTED.getAndAdd(this, 1L);
    }

    /**
     * Adds everything {@code from} holds and zeroes it; the caller has {@code from} alone. Only
     * the slots between its min and max can be non-zero, so only those are visited.
     */
    void takeAll(Accumulator from, BucketLayout layout) {
      if (from.max != Long.MIN_VALUE) {
        long[] source = from.counts;
        for (int i = layout.indexOf(from.min), last = layout.indexOf(from.max); i <= last; i++) {
          if (source[i] != 0) {
            counts[i] += source[i];
            source[i] = 0;
          }
        }
      }
      sum += from.sum;
      rejected += from.rejected;
      min = Math.min(min, from.min);
      max = Math.max(max, from.max);
      from.sum = 0;
      from.rejected = 0;
      from.min = Long.MAX_VALUE;
      from.max = Long.MIN_VALUE;
    }

    boolean isEmpty() {
      return max == Long.MIN_VALUE && rejected == 0;
    }

    /** Samples held; visits only the slots between min and max. */
    long countBetween(BucketLayout layout) {
      long n = 0;
      if (max != Long.MIN_VALUE) {
        for (int i = layout.indexOf(min), last = layout.indexOf(max); i <= last; i++) {
          n += counts[i];
        }
      }
      return n;
    }

    void clear(BucketLayout layout) {
      if (max != Long.MIN_VALUE) {
        Arrays.fill(counts, layout.indexOf(min), layout.indexOf(max) + 1, 0L);
      }
      sum = 0;
      rejected = 0;
      min = Long.MAX_VALUE;
      max = Long.MIN_VALUE;
    }
  }

  abstract static class StripePadBefore {
    long p01, p02, p03, p04, p05, p06, p07, p08;
  }

  abstract static class StripeFields extends StripePadBefore {
    final WriterReaderPhaser phaser = new WriterReaderPhaser();
    volatile Accumulator active;
    Accumulator inactive;
  }

  /**
   * One recording stripe, padded so that two stripes' hot fields never share a cache line.
   * Several threads may share a stripe; they then contend only with each other.
   */
  static final class Stripe extends StripeFields {
    static final long BYTES = 16 + 8 * 8 + 4 + 4 + 4 + 8 * 8 + 64 /* phaser */;
    long p11, p12, p13, p14, p15, p16, p17, p18;

    Stripe(int length) {
      active = new Accumulator(length);
      inactive = new Accumulator(length);
    }
  }
}
