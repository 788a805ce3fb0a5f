package io.ringtail;

import io.ringtail.internal.Checks;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Records samples into the buckets of a window definition and hands each bucket's samples out as
 * {@link BucketHistogram}s, for a window that keeps its buckets elsewhere (for example a fleet's
 * merged buckets in Redis). The record path is the in-process window's: padded stripes a thread
 * picks by its probe and leaves when it meets another thread there, HdrHistogram's {@code
 * WriterReaderPhaser}, no lock, and no allocation while drains keep up (below).
 *
 * <p>Buckets are numbered by absolute index {@code floor(t / bucketWidth)} of the time source's
 * reading {@code t}, so processes sharing a time base fill the same buckets. As in the in-process
 * window, a record past the live bucket rotates it (lazily, trying the lock only), and a reading
 * earlier than the live bucket records into the live bucket. A rotation only flips the stripes; the
 * finished bucket's slots are read out by the next {@link #drain()}, on the drainer's thread, so a
 * recording thread never walks a bucket's slots unless no drain came for a whole bucket.
 *
 * <p><b>Memory</b>. A keyed fleet window holds a recorder per key, so {@link #create} keeps what a
 * key costs in step with the distinct values it sees. Each stripe's two accumulators count into
 * {@link SlotTable}s, open-addressing tables of (slot, count) that writers fill lock-free: a new
 * slot claims a cell by a compare-and-set, an old one adds to its count. Each drain reads the
 * flipped accumulators out and, on the drainer's thread, sizes each table for the distinct slots it
 * just held (at most half its cells used; shrunk after a run of quiet drains), or swaps it for the
 * dense array once that is the smaller (about a thousand distinct slots at the defaults). So while
 * drains come at least once per table's worth of new distinct values, a record only probes and
 * adds. <b>Fallback</b>: a burst of new values that fills a table between two drains makes the
 * first writer that finds no cell allocate an overflow table twice the size and publish it by a
 * compare-and-set (a table the size of the layout ends the chain, so it always takes the slot).
 * That is the record path's only allocation; the next drain sums the chain and grows the table, and
 * {@code recordGrowths} counts these. The recorder starts with one stripe and adds stripes, up to
 * {@link WindowConfig#stripes()}, at a drain after writers kept colliding. {@link #dense} keeps the
 * earlier shape: two dense arrays per configured stripe from the start.
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

  /** Whether the stripes' accumulators are compact, refitted at each drain. */
  private final boolean compact;

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

  /** Overflow tables recording threads allocated, as counted when their tables were read out. */
  private long recordGrowths;

  private BucketRecorder(WindowConfig config, TimeSource timeSource, boolean compact) {
    this.config = config;
    this.timeSource = timeSource;
    this.layout = BucketLayout.of(config);
    this.width = config.bucketWidthNanos();
    this.highest = config.highestTrackableValue();
    // a bucket is handed out long before its sum could near Long.MAX_VALUE: no headroom shares;
    // and the configured stripes are the most (a keyed fleet window holds a recorder per key)
    this.compact = compact;
    this.recorder =
        compact
            // one stripe until writers collide, then up to the configured stripes
            ? StripedRecorder.compact(layout, config.stripes())
            : StripedRecorder.fixed(layout, config.stripes());
    this.liveBucket = Math.floorDiv(timeSource.nanoTime(), width);
    this.liveStart = liveBucket * width;
  }

  /**
   * A recorder of {@code config}'s buckets reading {@code timeSource}, whose memory follows the
   * distinct values it sees: each stripe counts into small hash tables of the slots seen, sized at
   * each drain to what the last drain held, or into dense arrays once those are the smaller. It
   * starts with one stripe and adds more, up to {@link WindowConfig#stripes()}, when recording
   * threads keep colliding. About 7 KB for a key of 100 distinct values that one stripe records.
   */
  public static BucketRecorder create(WindowConfig config, TimeSource timeSource) {
    return new BucketRecorder(
        Checks.requireNonNull("config", config),
        Checks.requireNonNull("timeSource", timeSource),
        true);
  }

  /**
   * A recorder of {@code config}'s buckets reading {@code timeSource} that keeps two dense count
   * arrays per stripe, {@link WindowConfig#stripes()} stripes from the start: a fixed footprint
   * (about 37 KB per array at the defaults), for a recorder that sees most of its value range.
   */
  public static BucketRecorder dense(WindowConfig config, TimeSource timeSource) {
    return new BucketRecorder(
        Checks.requireNonNull("config", config),
        Checks.requireNonNull("timeSource", timeSource),
        false);
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
      if (compact) {
        recorder.growIfContended(true, Long.MAX_VALUE);
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes this recorder holds in the heap, as currently allocated. */
  public long footprintBytes() {
    lock.lock();
    try {
      long bytes = 456 + recorder.footprintBytes(); // the recorder, its lock and its two deques
      for (SealedBucket b : sealed) {
        bytes += SealedBucket.BYTES + 16 + b.data.length;
      }
      for (SealedBucket b : spare) {
        bytes += SealedBucket.BYTES + 16 + b.data.length;
      }
      return bytes;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Overflow tables recording threads had to allocate because a stripe's table filled up between
   * two drains, counted as drains read them out; stays put while drains keep up with the distinct
   * values recorded.
   */
  long recordGrowths() {
    lock.lock();
    try {
      return recordGrowths;
    } finally {
      lock.unlock();
    }
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
          if (flipped.table != null) {
            b.encode(flippedBucket, flipped.table.sorted(), flipped);
          } else {
            b.encode(flippedBucket, flipped, layout);
          }
          sealed.addLast(b);
          release(flipped, b.slots);
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
      } else if (compact) {
        release(flipped, 0); // an idle accumulator shrinks too
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
    return BucketHistogram.trusted(b.bucket, slots, counts, n, b.sum, b.min, b.max, b.rejected);
  }

  /**
   * Clears an accumulator read out, which held {@code distinct} slots; a compact one is refitted
   * for what comes next.
   */
  private void release(Accumulator a, int distinct) {
    if (!compact) {
      a.clear(layout);
      return;
    }
    SlotTable t = a.table;
    if (t != null) {
      recordGrowths += t.overflowCount();
    }
    a.refit(distinct, layout);
  }

  /** An accumulator as a histogram of {@code bucket}; clears it. */
  private BucketHistogram take(long bucket, Accumulator from) {
    if (from.table != null) {
      return takeTable(bucket, from);
    }
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
    release(from, distinct);
    return out;
  }

  /** A compact accumulator's table as a histogram of {@code bucket}; refits it. */
  private BucketHistogram takeTable(long bucket, Accumulator from) {
    SlotTable sorted = from.table.sorted();
    int[] keys = sorted.keys;
    int distinct = keys.length - sorted.sortedFrom;
    int[] slots = new int[distinct];
    long[] slotCounts = new long[distinct];
    long n = 0;
    for (int i = sorted.sortedFrom, k = 0; i < keys.length; i++, k++) {
      slots[k] = keys[i] - 1;
      slotCounts[k] = sorted.counts[i];
      n += slotCounts[k];
    }
    BucketHistogram out =
        BucketHistogram.trusted(
            bucket, slots, slotCounts, n, from.sum, from.min, from.max, from.rejected);
    release(from, distinct);
    return out;
  }
}
