package io.ringtail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;

/**
 * The in-process {@link RollingWindow}.
 *
 * <h2>Representation</h2>
 * <ul>
 *   <li><b>Stripes</b> (the live bucket): each recording thread adds into one of a few padded
 *       stripes, picked by thread id, holding a dense count array in HdrHistogram's layout
 *       ({@link BucketLayout}) plus sum, min, max and rejected. A record is one volatile read of
 *       the live bucket's start, two uncontended atomic adds and two plain compares.
 *   <li><b>Sealed buckets</b>: when time moves into a new bucket, the live counts are drained
 *       slot by slot with {@code getAndSet(0)} into a compact list of the slots the bucket saw
 *       (varint-coded, two to three bytes each), kept in a FIFO of at most {@code buckets} entries whose arrays are
 *       reused, so steady-state rotation allocates nothing.
 *   <li><b>Window total</b>: one dense array holding the sum of the sealed buckets; a sealed
 *       bucket is added when sealed and subtracted when it leaves the window. A snapshot is
 *       therefore total + stripes, whatever the number of buckets or samples.
 * </ul>
 *
 * <h2>Rotation protocol</h2>
 * <ol>
 *   <li>Writers never wait. A writer whose time lies past the live bucket tries the rotation
 *       lock; if another thread holds it, the writer adds to the stripes anyway and its sample
 *       joins whichever bucket the next drain seals.
 *   <li>Drains move counts with per-slot {@code getAndSet}, so a concurrent add is either in
 *       this drain or left for the next one: never lost, never counted twice.
 *   <li>Writers add min/max, then sum, then the slot count; drains and snapshots read the slot
 *       counts first. A counted sample's sum, min and max are therefore always visible; a
 *       sample still in flight may show in sum, min or max before its count does.
 *   <li>After an idle gap of a whole window or more everything is expired: the total is
 *       cleared in one pass rather than bucket by bucket, so catch-up never loops over the gap.
 *   <li>A reading earlier than the live bucket (a late writer, or a time source that steps
 *       backwards) records into the live bucket and never rotates backwards.
 * </ol>
 */
final class StripedWindow implements RollingWindow {
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private final WindowConfig config;
  private final TimeSource timeSource;
  private final BucketLayout layout;
  private final long width;
  private final int bucketCount;
  private final long highest;
  private final long origin;
  private final Stripe[] stripes;
  private final int stripeMask;

  /** Start of the live bucket; the only shared field a record reads. */
  private volatile long liveStart;

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock
  private long liveEpoch;
  private final long[] total;
  private long totalSum;
  private long totalRejected;
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
    if (value >= 0 && value <= highest) {
      stripe.add(layout.indexOf(value), value);
    } else {
      stripe.reject();
    }
  }

  @Override
  public HistogramSnapshot snapshot() {
    long now = timeSource.nanoTime();
    lock.lock();
    try {
      advanceLocked(now);
      Histogram histogram = new Histogram(config.lowestDiscernibleValue(), highest,
          config.significantDigits());
      long[] merged = total.clone();
      long sum = totalSum;
      long rejected = totalRejected;
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (Stripe stripe : stripes) {
        long[] counts = stripe.counts;
        for (int i = 0; i < counts.length; i++) {
          merged[i] += (long) LONGS.getVolatile(counts, i);
        }
        sum += stripe.sum();
        rejected += stripe.rejectedCount();
        min = Math.min(min, stripe.min());
        max = Math.max(max, stripe.max());
      }
      for (int i = 0; i < merged.length; i++) {
        if (merged[i] != 0) {
          histogram.recordValueWithCount(layout.valueAt(i), merged[i]);
        }
      }
      for (int k = 0; k < sealedSize; k++) {
        Sealed s = sealed[(sealedHead + k) % bucketCount];
        min = Math.min(min, s.min);
        max = Math.max(max, s.max);
      }
      long start = origin + (liveEpoch - bucketCount + 1) * width;
      long end = now - liveStart < 0 ? liveStart : now;
      return new HistogramSnapshot(histogram, sum, min, max, rejected, start, end);
    } finally {
      lock.unlock();
    }
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
    long bytes = 128 /* this object, lock */ + arrayHeader + 4L * sealed.length;
    bytes += stripes.length * (Stripe.BYTES + arrayHeader + 8L * layout.length());
    bytes += arrayHeader + 8L * total.length;
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
    long oldestKept = epoch - bucketCount + 1;
    if (liveEpoch >= oldestKept) {
      seal(liveEpoch);
      while (sealedSize > 0 && sealed[sealedHead].epoch < oldestKept) {
        evictOldest();
      }
    } else {
      drainStripes(null);
      Arrays.fill(total, 0L);
      totalSum = 0;
      totalRejected = 0;
      sealedSize = 0;
    }
    liveEpoch = epoch;
    liveStart = origin + epoch * width;
  }

  private void seal(long epoch) {
    Sealed bucket = sealed[(sealedHead + sealedSize) % bucketCount];
    if (bucket == null) {
      bucket = new Sealed();
      sealed[(sealedHead + sealedSize) % bucketCount] = bucket;
    }
    bucket.reset(epoch);
    drainStripes(bucket);
    if (bucket.isEmpty()) {
      return;
    }
    bucket.addTo(total, 1);
    totalSum += bucket.sum;
    totalRejected += bucket.rejected;
    sealedSize++;
  }

  /** Moves everything the stripes hold into {@code into} (ascending slots), or discards it when null. */
  private void drainStripes(Sealed into) {
    int length = layout.length();
    for (int i = 0; i < length; i++) {
      long taken = 0;
      for (Stripe stripe : stripes) {
        if ((long) LONGS.getOpaque(stripe.counts, i) != 0) {
          taken += (long) LONGS.getAndSet(stripe.counts, i, 0L);
        }
      }
      if (taken != 0 && into != null) {
        into.add(i, taken);
      }
    }
    for (Stripe stripe : stripes) {
      stripe.drainTotalsTo(into);
    }
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

    boolean isEmpty() {
      return size == 0 && rejected == 0;
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

  abstract static class StripePadBefore {
    long p01, p02, p03, p04, p05, p06, p07, p08;
  }

  abstract static class StripeFields extends StripePadBefore {
    static final VarHandle SUM;
    static final VarHandle MIN;
    static final VarHandle MAX;
    static final VarHandle REJECTED;

    static {
      try {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        SUM = lookup.findVarHandle(StripeFields.class, "sum", long.class);
        MIN = lookup.findVarHandle(StripeFields.class, "min", long.class);
        MAX = lookup.findVarHandle(StripeFields.class, "max", long.class);
        REJECTED = lookup.findVarHandle(StripeFields.class, "rejected", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final long[] counts;
    long sum;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long rejected;

    StripeFields(int length) {
      this.counts = new long[length];
    }
  }

  /**
   * One recording stripe, padded so that two stripes never share a cache line. Thread-safe:
   * several threads may share a stripe; they then contend only with each other.
   */
  static final class Stripe extends StripeFields {
    static final long BYTES = 16 + 8 * 8 + 8 + 4 * 8 + 8 * 8;
    long p11, p12, p13, p14, p15, p16, p17, p18;

    Stripe(int length) {
      super(length);
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

    long sum() {
      return (long) SUM.getVolatile(this);
    }

    long min() {
      return (long) MIN.getVolatile(this);
    }

    long max() {
      return (long) MAX.getVolatile(this);
    }

    long rejectedCount() {
      return (long) REJECTED.getVolatile(this);
    }

    /** Moves sum, rejected, min and max into {@code into}, or discards them when null. */
    void drainTotalsTo(Sealed into) {
      long takenSum = (long) SUM.getAndSet(this, 0L);
      long takenRejected = (long) REJECTED.getAndSet(this, 0L);
      long takenMin = (long) MIN.getAndSet(this, Long.MAX_VALUE);
      long takenMax = (long) MAX.getAndSet(this, Long.MIN_VALUE);
      if (into != null) {
        into.sum += takenSum;
        into.rejected += takenRejected;
        into.min = Math.min(into.min, takenMin);
        into.max = Math.max(into.max, takenMax);
      }
    }
  }
}
