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
 *
 * <ul>
 *   <li><b>Stripes</b>: each recording thread adds into one of a few padded stripes, picked by its
 *       {@link Probe} (first its thread id). A stripe holds two accumulators (a dense count array
 *       in HdrHistogram's layout, see {@link BucketLayout}, plus sum, min, max and rejected):
 *       writers add into the active one while the other is drained, as in HdrHistogram's {@code
 *       Recorder}. A writer whose compare-and-set on the sum fails met another writer: it moves to
 *       another stripe for its next record, and once enough records have collided (a count halved
 *       at every rotation) the next rotation or snapshot doubles the stripes, up to the processors
 *       rounded up to a power of two. A stripe once added stays, so every drain sees every stripe a
 *       writer could have entered.
 *   <li><b>Live bucket</b>: one dense accumulator, guarded by the window lock, into which the
 *       stripes are drained by every snapshot and rotation.
 *   <li><b>Sealed buckets</b>: when time moves into a new bucket the live bucket is sealed into a
 *       compact list of the slots it saw (varint-coded, two to three bytes each), kept in a FIFO of
 *       at most {@code buckets} entries. An entry's array is reused while it is big enough and at
 *       most 1.5 times what the bucket now needs, and replaced by one an eighth larger than needed
 *       otherwise, so memory follows what the buckets hold now (it does not ratchet up to the
 *       largest bucket ever seen) and steady traffic rotates without allocating.
 *   <li><b>Window total</b>: one dense array holding the sum of the sealed buckets; a bucket is
 *       added when sealed and subtracted when it leaves the window. A snapshot is total plus live
 *       bucket, whatever the number of buckets or samples.
 *   <li><b>Retired totals</b>: count, sum and rejected of every bucket ever sealed (or dropped
 *       unsealed after an idle gap), added at rotation; a snapshot's {@link WindowTotals} are these
 *       plus the live bucket, so recording pays nothing for them.
 * </ul>
 *
 * <h2>Concurrency protocol</h2>
 *
 * Built on HdrHistogram's {@link WriterReaderPhaser}, whose guarantees it inherits:
 *
 * <ol>
 *   <li>A record enters its stripe's phaser, adds sum (a compare-and-set), count, min and max to
 *       the stripe's active accumulator, and exits: two atomic increments on the phaser, a
 *       compare-and-set, an atomic add and two compares. It takes no lock, allocates nothing and
 *       never waits.
 *   <li>The sum never wraps. Each undrained accumulator holds a share of the headroom {@code
 *       Long.MAX_VALUE - window sum}, handed out at each drain, and accepts a sample only within
 *       it; a sample beyond its share is decided exactly under the lock (accepted, or rejected and
 *       counted if the window's sum cannot take it), which happens only when the window's sum comes
 *       within a few shares of {@code Long.MAX_VALUE}.
 *   <li>A reading more than one bucket ahead of the time source is rejected and counted, and moves
 *       nothing. Only a record that would rotate reads the time source to check it.
 *   <li>A drain (under the window lock) swaps the stripe's accumulators and flips the phaser, which
 *       returns once every record that could have seen the old accumulator has exited. The old
 *       accumulator is then read and zeroed by the drain alone. Each sample's count, sum, min and
 *       max therefore move together: nothing is lost, counted twice, or split.
 *   <li>Rotation is lazy. The first record or snapshot whose reading lies past the live bucket
 *       drains the stripes, seals the live bucket and evicts buckets that left the window. A writer
 *       only tries the lock: if another thread holds it, the writer records without waiting and its
 *       sample joins the bucket that thread is filling. The rotating writer waits, in the flip,
 *       only for records already in flight.
 *   <li>After an idle gap of a whole window or more everything has expired: the total is cleared in
 *       one pass rather than bucket by bucket, so catch-up never loops over the gap.
 *   <li>A reading earlier than the live bucket (a late writer, or a time source that steps
 *       backwards) records into the live bucket and never rotates backwards.
 * </ol>
 */
final class StripedWindow implements RollingWindow {
  /** Contended records within one bucket that make the window add stripes. */
  static final int GROW_AFTER_CONTENDED = 64;

  /** The most stripes a window grows to: the processors, rounded up to a power of two. */
  static final int GROWTH_BOUND =
      Math.min(
          WindowConfig.MAX_STRIPES,
          Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 2 - 1)));

  private final WindowConfig config;
  private final TimeSource timeSource;
  private final BucketLayout layout;
  private final long width;
  private final int bucketCount;
  private final long highest;
  private final long origin;
  private final int maxStripes;

  /** Grown (under the lock) by copying; a stripe once added is never removed. */
  private volatile Stripe[] stripes;

  /** Start of the live bucket; with the stripes, the only shared fields a record reads. */
  private volatile long liveStart;

  /** Contended records, halved at each rotation; counted racily, a hint only. */
  private int contended;

  /** The latest {@link #recentSnapshot()}, tagged with the live bucket it was taken in. */
  private volatile Recent recent;

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

  /**
   * Sum of the limits of the stripes' undrained accumulators; with totalSum and live.sum at most
   * Long.MAX_VALUE.
   */
  private long granted;

  private final Sealed[] sealed;
  private int sealedHead;
  private int sealedSize;

  StripedWindow(WindowConfig config, TimeSource timeSource) {
    this(config, timeSource, GROWTH_BOUND);
  }

  /** A window whose stripes may grow to {@code growthBound} (or its configured count, if more). */
  StripedWindow(WindowConfig config, TimeSource timeSource, int growthBound) {
    this.config = config;
    this.timeSource = timeSource;
    this.layout = BucketLayout.of(config);
    this.width = config.bucketWidthNanos();
    this.bucketCount = config.buckets();
    this.highest = config.highestTrackableValue();
    this.maxStripes = Math.max(config.stripes(), growthBound);
    long now = timeSource.nanoTime();
    this.origin = now - Math.floorMod(now, width);
    this.liveStart = origin;
    this.liveEpoch = 0;
    this.live = new Accumulator(layout.length());
    this.total = new long[layout.length()];
    this.sealed = new Sealed[bucketCount];
    Stripe[] initial = new Stripe[config.stripes()];
    for (int i = 0; i < initial.length; i++) {
      initial[i] = newStripe(initial.length);
    }
    this.stripes = initial;
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
    Probe probe = Probe.current();
    Stripe[] table = stripes;
    Stripe stripe = table[probe.hash & (table.length - 1)];
    int outcome;
    long ticket = stripe.phaser.writerCriticalSectionEnter();
    try {
      Accumulator active = stripe.active;
      if (inRange) {
        outcome = active.add(layout.indexOf(value), value);
      } else {
        active.reject();
        outcome = Accumulator.ADDED;
      }
    } finally {
      stripe.phaser.writerCriticalSectionExit(ticket);
    }
    if (outcome != Accumulator.ADDED) {
      if (outcome == Accumulator.CONTENDED) {
        probe.rehash();
        contended++;
      } else {
        recordNearSumLimit(value);
      }
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
      drainStripes(false);
      if (value <= Long.MAX_VALUE - totalSum - live.sum) {
        live.addLocked(layout.indexOf(value), value);
      } else {
        live.rejected++;
      }
      for (Stripe stripe : stripes) {
        Accumulator active = stripe.active;
        long share = share();
        active.raiseLimit(share);
        granted += share;
      }
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
      drainStripes(true);
      growIfContended(rotated);
      long start = origin + (liveEpoch - bucketCount + 1) * width;
      long end = now - liveStart < 0 ? liveStart : now;
      long rejected = totalRejected + live.rejected;
      long min = live.min;
      long max = live.max;
      for (int k = 0; k < sealedSize; k++) {
        Sealed s = sealed[(sealedHead + k) % bucketCount];
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
    return stripes.length;
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
      Stripe[] table = stripes;
      bytes +=
          arrayHeader
              + 4L * table.length
              + table.length * (Stripe.BYTES + 2 * (Accumulator.BYTES + denseArray));
      bytes += Accumulator.BYTES + 2 * denseArray;
      for (Sealed s : sealed) {
        if (s != null) {
          bytes += Sealed.BYTES + arrayHeader + s.data.length;
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
        growIfContended(advanceLocked(now));
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
    drainStripes(true);
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
    return true;
  }

  /**
   * Doubles the stripes, up to the bound, when enough records met another thread on their stripe
   * recently (the count halves at each rotation, so only a sustained rate of collisions adds
   * stripes). Under the lock, at a rotation or snapshot, so the record path itself never allocates.
   */
  private void growIfContended(boolean rotated) {
    int seen = contended;
    if (seen >= GROW_AFTER_CONTENDED && stripes.length < maxStripes) {
      contended = 0;
      growStripes();
    } else if (rotated && seen != 0) {
      contended = seen >> 1;
    }
  }

  /** Doubles the stripes up to the bound, as contention would. */
  void growStripesNow() {
    lock.lock();
    try {
      growStripes();
    } finally {
      lock.unlock();
    }
  }

  /** Doubles the stripes up to the bound; under the lock. */
  private void growStripes() {
    Stripe[] table = stripes;
    if (table.length < maxStripes) {
      Stripe[] grown = Arrays.copyOf(table, table.length * 2);
      for (int i = table.length; i < grown.length; i++) {
        grown[i] = newStripe(grown.length);
      }
      stripes = grown;
    }
  }

  /**
   * A stripe whose active accumulator holds its share of the sum's headroom; under the lock or in
   * the constructor.
   */
  private Stripe newStripe(int stripeCount) {
    Stripe stripe = new Stripe(layout.length());
    long share = (Long.MAX_VALUE - totalSum - live.sum - granted) / (stripeCount + 1);
    stripe.active.raiseLimit(share);
    granted += share;
    return stripe;
  }

  /** One stripe's share of the sum's headroom not yet handed out. */
  private long share() {
    return (Long.MAX_VALUE - totalSum - live.sum - granted) / (stripes.length + 1);
  }

  /**
   * Moves everything the stripes hold into the live bucket. Each stripe's fresh accumulator gets a
   * share of the sum's remaining headroom ({@code withShares}) or none, and the drained one's share
   * is released: so the window's sum plus every share still out never passes {@link
   * Long#MAX_VALUE}, and no sample can make the sum wrap.
   */
  private void drainStripes(boolean withShares) {
    for (Stripe stripe : stripes) {
      Accumulator fresh = stripe.inactive;
      long share = withShares ? share() : 0;
      fresh.limit = share;
      granted += share;
      stripe.phaser.readerLock();
      try {
        Accumulator drained = stripe.active;
        stripe.active = fresh;
        stripe.inactive = drained;
        stripe.phaser.flipPhase();
        live.takeAll(drained, layout);
        granted -= drained.limit;
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
      int first = layout.indexOf(live.min);
      int last = layout.indexOf(live.max);
      bucket.fit(Sealed.encodedLength(counts, first, last));
      for (int i = first; i <= last; i++) {
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
   * A completed bucket: the slots it saw, ascending, as unsigned LEB128 varints of (gap since the
   * previous slot, count): two to three bytes per distinct slot.
   */
  static final class Sealed {
    static final long BYTES = 64;

    private static final byte[] EMPTY = {};

    long epoch;
    byte[] data = EMPTY;
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

    /** Bytes the non-zero slots {@code first..last} of {@code counts} take once encoded. */
    static int encodedLength(long[] counts, int first, int last) {
      int bytes = 0;
      int previous = -1;
      for (int i = first; i <= last; i++) {
        if (counts[i] != 0) {
          bytes += varintLength(i - previous - 1) + varintLength(counts[i]);
          previous = i;
        }
      }
      return bytes;
    }

    /**
     * Makes room for {@code bytes}: keeps the array while it is big enough and at most 1.5 times
     * that, else replaces it by one of {@code bytes} plus an eighth. The ring's memory follows what
     * its buckets need now, not the most any bucket ever needed, and buckets whose needs wander by
     * less than an eighth rotate without allocating.
     */
    void fit(int bytes) {
      if (data.length < bytes || data.length > bytes + (bytes >> 1) + 8) {
        data = new byte[bytes + (bytes >> 3) + 8];
      }
    }

    private static int varintLength(long v) {
      return v == 0 ? 1 : (63 - Long.numberOfLeadingZeros(v)) / 7 + 1;
    }

    /** Appends a slot; indexes must ascend and the array must have room ({@link #fit}). */
    void add(int index, long count) {
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
    static final long BYTES = 64;

    /** {@link #add} outcomes. */
    static final int ADDED = 0;

    static final int CONTENDED = 1;
    static final int OVER_LIMIT = 2;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle SUM;
    private static final VarHandle MIN;
    private static final VarHandle MAX;
    private static final VarHandle REJECTED;
    private static final VarHandle LIMIT;

    static {
      try {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        SUM = lookup.findVarHandle(Accumulator.class, "sum", long.class);
        MIN = lookup.findVarHandle(Accumulator.class, "min", long.class);
        MAX = lookup.findVarHandle(Accumulator.class, "max", long.class);
        REJECTED = lookup.findVarHandle(Accumulator.class, "rejected", long.class);
        LIMIT = lookup.findVarHandle(Accumulator.class, "limit", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final long[] counts;

    /** Samples held; kept by the live bucket's instance only (stripes leave it at zero). */
    long count;

    long sum;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long rejected;

    /**
     * The most {@link #sum} may reach: this accumulator's share of the window sum's headroom. Set
     * before the accumulator becomes active and only raised while it is.
     */
    long limit;

    Accumulator(int length) {
      this.counts = new long[length];
    }

    /**
     * Adds a sample unless the sum would pass the limit ({@link #OVER_LIMIT}, nothing added);
     * reports {@link #CONTENDED} when another writer changed the sum under it.
     */
    int add(int index, long value) {
      int outcome = ADDED;
      long s = (long) SUM.getOpaque(this);
      while (true) {
        if (value > (long) LIMIT.getOpaque(this) - s) {
          return OVER_LIMIT;
        }
        long witness = (long) SUM.compareAndExchange(this, s, s + value);
        if (witness == s) {
          break;
        }
        s = witness;
        outcome = CONTENDED;
      }
      long seen = (long) MIN.getOpaque(this);
      while (value < seen && !MIN.weakCompareAndSet(this, seen, value)) {
        seen = (long) MIN.getOpaque(this);
      }
      seen = (long) MAX.getOpaque(this);
      while (value > seen && !MAX.weakCompareAndSet(this, seen, value)) {
        seen = (long) MAX.getOpaque(this);
      }
      LONGS.getAndAdd(counts, index, 1L);
      return outcome;
    }

    /** Adds a sample; only for the live bucket, under the window lock. */
    void addLocked(int index, long value) {
      counts[index]++;
      count++;
      sum += value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }

    void raiseLimit(long newLimit) {
      LIMIT.setOpaque(this, newLimit);
    }

    void reject() {
      REJECTED.getAndAdd(this, 1L);
    }

    /**
     * Adds everything {@code from} holds and zeroes it; the caller has {@code from} alone. Only the
     * slots between its min and max can be non-zero, so only those are visited.
     */
    void takeAll(Accumulator from, BucketLayout layout) {
      if (from.max != Long.MIN_VALUE) {
        long[] source = from.counts;
        for (int i = layout.indexOf(from.min), last = layout.indexOf(from.max); i <= last; i++) {
          if (source[i] != 0) {
            counts[i] += source[i];
            count += source[i];
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
      count = 0;
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
   * One recording stripe, padded so that two stripes' hot fields never share a cache line. Several
   * threads may share a stripe; they then contend only with each other.
   */
  static final class Stripe extends StripeFields {
    static final long BYTES = 16 + 8 * 8 + 4 + 4 + 8 * 8 + 64 /* phaser */;
    long p11, p12, p13, p14, p15, p16, p17, p18;

    Stripe(int length) {
      active = new Accumulator(length);
      inactive = new Accumulator(length);
    }
  }
}
