package io.ringtail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Records samples into the buckets of a window definition and hands each bucket's samples out as
 * {@link BucketHistogram}s, for a window that keeps its buckets elsewhere (for example a fleet's
 * merged buckets in Redis). The record path is the in-process window's: padded stripes a thread
 * picks by its probe and leaves when it meets another thread there (the configured number of
 * stripes: a keyed fleet window holds a recorder per key), HdrHistogram's {@code
 * WriterReaderPhaser}, no lock, no allocation.
 *
 * <p>Buckets are numbered by absolute index {@code floor(t / bucketWidth)} of the time source's
 * reading {@code t}, so processes sharing a time base fill the same buckets. As in the in-process
 * window, a record past the live bucket rotates it (lazily, trying the lock only), and a reading
 * earlier than the live bucket records into the live bucket. A rotation only flips the stripes; the
 * finished bucket's slots are read out by the next {@link #drain()}, on the drainer's thread, so a
 * recording thread never walks a bucket's slots unless no drain came for a whole bucket.
 *
 * <p><b>Service-provider interface</b> for backends that keep a window's buckets outside the
 * process (the Redis backend's fleet histogram windows are one): applications use the windows such
 * a backend builds, never this class. With {@link BucketHistogram} it is the whole of that
 * interface.
 *
 * <p>Thread-safe: any number of threads may record while one or more threads {@linkplain #drain()
 * drain}. Each recorded sample is handed out by exactly one drain.
 */
public final class BucketRecorder {
  /** Emptied sealed buckets kept for reuse: rotations a drain may lag behind without allocating. */
  private static final int SPARES = 4;

  private static final long NONE = Long.MIN_VALUE;

  private final WindowConfig config;
  private final TimeSource timeSource;
  private final BucketLayout layout;
  private final long width;
  private final long highest;
  private final StripedRecorder recorder;

  /** Start of the live bucket; the only shared field a record reads besides its stripe. */
  private volatile long liveStart;

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock
  private long liveBucket;

  /**
   * The bucket whose last samples wait in the stripes' inactive accumulators since a rotation
   * flipped them, or {@link #NONE}: a rotation only flips, and the next drain moves them out.
   */
  private long flippedBucket = NONE;

  // buckets sealed by a rotation that found the previous one still flipped (no drain for a whole
  // bucket), oldest first, and emptied ones to reuse: such a rotation encodes into a spare
  private final ArrayDeque<SealedBucket> sealed = new ArrayDeque<>();
  private final ArrayDeque<SealedBucket> spare = new ArrayDeque<>();

  private BucketRecorder(WindowConfig config, TimeSource timeSource) {
    this.config = config;
    this.timeSource = timeSource;
    this.layout = BucketLayout.of(config);
    this.width = config.bucketWidthNanos();
    this.highest = config.highestTrackableValue();
    // a bucket is handed out long before its sum could near Long.MAX_VALUE: no headroom shares;
    // and the configured stripes are the most (a keyed fleet window holds a recorder per key)
    this.recorder =
        new StripedRecorder(layout, config.stripes(), config.stripes(), false, Long.MAX_VALUE);
    this.liveBucket = Math.floorDiv(timeSource.nanoTime(), width);
    this.liveStart = liveBucket * width;
  }

  /** A recorder of {@code config}'s buckets reading {@code timeSource}. */
  public static BucketRecorder create(WindowConfig config, TimeSource timeSource) {
    return new BucketRecorder(
        Objects.requireNonNull(config, "config"), Objects.requireNonNull(timeSource, "timeSource"));
  }

  /** The configuration whose buckets and precision this recorder uses. */
  public WindowConfig config() {
    return config;
  }

  /** The time source it reads. */
  public TimeSource timeSource() {
    return timeSource;
  }

  /** The absolute index of the bucket {@code timeNanos} falls in. */
  public long bucketOf(long timeNanos) {
    return Math.floorDiv(timeNanos, width);
  }

  /** Records a sample at the time source's current reading. */
  public void record(long value) {
    recordAt(value, timeSource.nanoTime());
  }

  /**
   * Records a sample at a reading of the time source. A negative sample or one above the highest
   * trackable value is counted as rejected, never thrown on.
   */
  public void recordAt(long value, long timeNanos) {
    if (timeNanos - liveStart >= width) {
      tryAdvance(timeNanos);
    }
    boolean inRange = value >= 0 && value <= highest;
    if (recorder.record(value, inRange) == Accumulator.OVER_LIMIT) {
      recorder.reject(); // a bucket summing past Long.MAX_VALUE
    }
  }

  /**
   * Hands out everything recorded since the previous drain, one histogram per bucket that saw
   * samples or rejections, oldest bucket first. The live bucket is included as far as it is filled;
   * its later samples come out in a later drain.
   */
  public List<BucketHistogram> drain() {
    long now = timeSource.nanoTime();
    lock.lock();
    try {
      advanceLocked(now);
      List<BucketHistogram> out = new ArrayList<>(sealed.size() + 2);
      for (SealedBucket b = sealed.pollFirst(); b != null; b = sealed.pollFirst()) {
        add(out, histogramOf(b));
        if (spare.size() < SPARES) {
          spare.addLast(b);
        }
      }
      if (flippedBucket != NONE) {
        add(out, takeFlipped(flippedBucket));
        flippedBucket = NONE;
      }
      recorder.flip();
      add(out, takeFlipped(liveBucket));
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes this recorder holds in the heap, as currently allocated. */
  public long footprintBytes() {
    long denseArray = 16 + 8L * layout.length();
    long bytes = 160 + recorder.footprintBytes(denseArray);
    lock.lock();
    try {
      for (SealedBucket b : sealed) {
        bytes += SealedBucket.BYTES + 16 + b.data.length;
      }
      for (SealedBucket b : spare) {
        bytes += SealedBucket.BYTES + 16 + b.data.length;
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

  /**
   * Rotates to the bucket {@code now} falls in, if later than the live one, by flipping the
   * stripes: the live bucket's samples stay in them for the next drain, so a rotation on a
   * recording thread costs a flip per stripe, not a pass over the bucket's slots. Only when the
   * previous rotation's samples are still there (no drain for a whole bucket) does it move them out
   * and seal them.
   */
  private void advanceLocked(long now) {
    long bucket = Math.floorDiv(now, width);
    if (bucket <= liveBucket) {
      return;
    }
    if (flippedBucket != NONE) {
      for (int i = 0, n = recorder.stripeCount(); i < n; i++) {
        Accumulator flipped = recorder.inactive(i);
        if (!flipped.isEmpty()) {
          SealedBucket b = spare.pollLast();
          if (b == null) {
            b = new SealedBucket();
          }
          b.encode(flippedBucket, flipped, layout);
          sealed.addLast(b);
          flipped.clear(layout);
        }
      }
    }
    recorder.flip();
    flippedBucket = liveBucket;
    liveBucket = bucket;
    liveStart = bucket * width;
  }

  /**
   * The stripes' flipped accumulators as one histogram of {@code bucket}, or null if they hold
   * nothing; clears them.
   */
  private BucketHistogram takeFlipped(long bucket) {
    BucketHistogram out = null;
    for (int i = 0, n = recorder.stripeCount(); i < n; i++) {
      Accumulator flipped = recorder.inactive(i);
      if (!flipped.isEmpty()) {
        BucketHistogram h = take(bucket, flipped);
        out = out == null ? h : out.plus(h);
      }
    }
    return out;
  }

  /** Appends {@code h}, if any, merging it into the last histogram when of the same bucket. */
  private static void add(List<BucketHistogram> out, BucketHistogram h) {
    if (h == null) {
      return;
    }
    int last = out.size() - 1;
    if (last >= 0 && out.get(last).bucket() == h.bucket()) {
      out.set(last, out.get(last).plus(h));
    } else {
      out.add(h);
    }
  }

  /** A sealed bucket as a bucket histogram. */
  private static BucketHistogram histogramOf(SealedBucket b) {
    int[] slots = new int[b.slots];
    long[] counts = new long[b.slots];
    long n = b.copyTo(slots, counts);
    return BucketHistogram.trusted(b.epoch, slots, counts, n, b.sum, b.min, b.max, b.rejected);
  }

  /** An accumulator as a histogram of {@code bucket}; clears it. */
  private BucketHistogram take(long bucket, Accumulator from) {
    long[] counts = from.counts;
    int distinct = 0;
    int first = 0;
    int last = -1;
    if (from.max != Long.MIN_VALUE) {
      first = layout.indexOf(from.min);
      last = layout.indexOf(from.max);
      for (int i = first; i <= last; i++) {
        if (counts[i] != 0) {
          distinct++;
        }
      }
    }
    int[] slots = new int[distinct];
    long[] slotCounts = new long[distinct];
    long n = 0;
    for (int i = first, k = 0; i <= last; i++) {
      if (counts[i] != 0) {
        slots[k] = i;
        slotCounts[k++] = counts[i];
        n += counts[i];
      }
    }
    BucketHistogram out =
        BucketHistogram.trusted(
            bucket, slots, slotCounts, n, from.sum, from.min, from.max, from.rejected);
    from.clear(layout);
    return out;
  }
}
