package io.ringtail;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

/**
 * A {@link RollingWindow} whose memory grows with what it holds, not with the value range it is
 * configured for: the window to keep per key when there are many keys.
 *
 * <p>Same window and percentile definitions, same precision, same snapshot as the striped window of
 * {@link RollingWindow#create}, checked by the same contract tests. Where they differ: each bucket
 * keeps, sparsely, only the histogram slots its samples fell in (12 bytes per distinct slot), so a
 * window that saw ten samples costs a few hundred bytes where a striped window costs its dense
 * arrays (145 KiB at the defaults with one stripe) from the start.
 *
 * <p>Thread-safe: every record and snapshot holds the window's lock for a short computation that
 * never blocks. Concurrent recorders on one window therefore contend; for a few windows recorded by
 * many threads, prefer {@link RollingWindow#create}. Recording a value not seen before in the live
 * bucket costs O(d) for the d distinct slots it holds; a seen one O(log d).
 */
final class CompactWindow implements RollingWindow {
  private static final long OBJECT_BYTES = 80;

  /** The layout of the configuration last used, shared by the many windows of one keyed set. */
  private static volatile Shape lastShape;

  private final WindowConfig config;
  private final TimeSource timeSource;
  private final BucketLayout layout;
  private final long width;
  private final int bucketCount;
  private final long origin;

  // guarded by this
  private long liveEpoch;
  private final Bucket[] ring;

  /** Count, sum and rejected of the buckets that left the ring, for {@link WindowTotals}. */
  private long retiredCount;

  private double retiredSum;
  private long retiredRejected;

  /** The slots of every bucket that left the ring; null unless the config keeps them. */
  private final Bucket retiredSlots;

  /**
   * Sum of every bucket in the ring, including any that left the window but are not yet dropped.
   */
  private long ringSum;

  private CompactWindow(WindowConfig config, TimeSource timeSource) {
    this.config = config;
    this.timeSource = timeSource;
    this.layout = layoutOf(config);
    this.width = config.bucketWidthNanos();
    this.bucketCount = config.buckets();
    long now = timeSource.nanoTime();
    this.origin = now - Math.floorMod(now, width);
    this.ring = new Bucket[bucketCount];
    this.retiredSlots = config.cumulativeHistogram() ? new Bucket(0) : null;
  }

  private record Shape(WindowConfig config, BucketLayout layout) {}

  private static BucketLayout layoutOf(WindowConfig config) {
    Shape shape = lastShape;
    if (shape == null || !shape.config.equals(config)) {
      shape = new Shape(config, BucketLayout.of(config));
      lastShape = shape;
    }
    return shape.layout;
  }

  /** An empty compact window of the given shape reading the given time source. */
  static CompactWindow create(WindowConfig config, TimeSource timeSource) {
    return new CompactWindow(
        Checks.requireNonNull("config", config), Checks.requireNonNull("timeSource", timeSource));
  }

  @Override
  public void record(long value) {
    recordAt(value, timeSource.nanoTime());
  }

  @Override
  public synchronized void recordAt(long value, long timeNanos) {
    boolean tooFarAhead = !advance(timeNanos);
    int at = (int) Math.floorMod(liveEpoch, (long) bucketCount);
    Bucket live = ring[at];
    if (live == null) {
      live = new Bucket(liveEpoch);
      ring[at] = live;
    } else if (live.epoch != liveEpoch) {
      retire(live);
      ringSum -= live.sum;
      live.reset(liveEpoch);
    }
    if (tooFarAhead || value < 0 || value > config.highestTrackableValue() || !fitsInSum(value)) {
      live.rejected++;
    } else {
      live.add(layout.indexOf(value), value);
      ringSum += value;
    }
  }

  /**
   * Whether the window's sum can take {@code value} without passing {@link Long#MAX_VALUE}. The
   * ring's running sum bounds the window's; only when it is too close are the buckets that left the
   * window dropped to get the exact figure.
   */
  private boolean fitsInSum(long value) {
    if (value <= Long.MAX_VALUE - ringSum) {
      return true;
    }
    dropExpired(liveEpoch - bucketCount + 1);
    return value <= Long.MAX_VALUE - ringSum;
  }

  private void dropExpired(long oldest) {
    for (int i = 0; i < ring.length; i++) {
      Bucket b = ring[i];
      if (b != null && b.epoch < oldest) {
        retire(b);
        ringSum -= b.sum;
        ring[i] = null;
      }
    }
  }

  @Override
  public WindowSnapshot snapshot() {
    long now = timeSource.nanoTime();
    synchronized (this) {
      advance(now);
      long oldest = liveEpoch - bucketCount + 1;
      dropExpired(oldest);
      long sum = 0;
      long rejected = 0;
      long count = 0;
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      int lists = 0;
      long entries = 0;
      int first = Integer.MAX_VALUE;
      int last = -1;
      for (Bucket b : ring) {
        if (b != null) {
          sum += b.sum;
          rejected += b.rejected;
          count += b.count();
          min = Math.min(min, b.min);
          max = Math.max(max, b.max);
          if (b.distinct > 0) {
            lists++;
            entries += b.distinct;
            first = Math.min(first, b.slots[0]);
            last = Math.max(last, b.slots[b.distinct - 1]);
          }
        }
      }
      long start = origin + oldest * width;
      long liveStart = origin + liveEpoch * width;
      long end = now - liveStart < 0 ? liveStart : now;
      WindowTotals totals =
          new WindowTotals(retiredCount + count, retiredSum + sum, retiredRejected + rejected);
      if (entries == 0) {
        return SnapshotBuilder.empty(layout, rejected, start, end, totals);
      }
      if (SnapshotBuilder.denseFits(last - first + 1L, entries)) {
        long[] counts = new long[last - first + 1];
        for (Bucket b : ring) {
          if (b != null) {
            for (int k = 0; k < b.distinct; k++) {
              counts[b.slots[k] - first] += b.counts[k];
            }
          }
        }
        return SnapshotBuilder.ofCounts(
            layout, first, counts, new SnapshotFields(sum, min, max, rejected, start, end, totals));
      }
      return ofBuckets(
          null, lists, new SnapshotFields(sum, min, max, rejected, start, end, totals));
    }
  }

  /**
   * The sum of the ring's {@code lists} non-empty buckets' slots and, if non-empty, {@code extra}'s
   * (null for none, counted in {@code lists}): see {@link SnapshotBuilder#ofLists}.
   */
  private HistogramSnapshot ofBuckets(Bucket extra, int lists, SnapshotFields fields) {
    int[][] slots = new int[lists][];
    long[][] counts = new long[lists][];
    int[] lengths = new int[lists];
    int l = 0;
    for (Bucket b : ring) {
      if (b != null && b.distinct > 0) {
        slots[l] = b.slots;
        counts[l] = b.counts;
        lengths[l++] = b.distinct;
      }
    }
    if (extra != null && extra.distinct > 0) {
      slots[l] = extra.slots;
      counts[l] = extra.counts;
      lengths[l++] = extra.distinct;
    }
    return SnapshotBuilder.ofLists(layout, slots, counts, lengths, l, fields);
  }

  /** Adds a bucket leaving the ring (null for none) to the totals since creation. */
  private void retire(Bucket b) {
    if (b != null) {
      retiredCount += b.count();
      retiredSum += b.sum;
      retiredRejected += b.rejected;
      if (retiredSlots != null) {
        retiredSlots.addAll(b);
      }
    }
  }

  @Override
  public Optional<CumulativeHistogram> cumulativeHistogram() {
    if (retiredSlots == null) {
      return Optional.empty();
    }
    long now = timeSource.nanoTime();
    synchronized (this) {
      advance(now);
      long count = retiredCount;
      double sum = retiredSum;
      long rejected = retiredRejected;
      long min = retiredSlots.min;
      long max = retiredSlots.max;
      int lists = retiredSlots.distinct > 0 ? 1 : 0;
      for (Bucket b : ring) {
        if (b != null) {
          count += b.count();
          sum += b.sum;
          rejected += b.rejected;
          min = Math.min(min, b.min);
          max = Math.max(max, b.max);
          lists += b.distinct > 0 ? 1 : 0;
        }
      }
      long liveStart = origin + liveEpoch * width;
      long end = now - liveStart < 0 ? liveStart : now;
      WindowTotals totals = new WindowTotals(count, sum, rejected);
      HistogramSnapshot histogram =
          ofBuckets(retiredSlots, lists, new SnapshotFields(0, min, max, 0, origin, end, totals));
      return Optional.of(
          new CumulativeHistogram(histogram, totals, config.significantDigits(), origin, end));
    }
  }

  /**
   * Moves the live bucket forward to the one {@code timeNanos} falls in; never backwards. Returns
   * false, and leaves the window where it is, for a reading more than one bucket ahead of the time
   * source; only a reading that would move the window is checked against it.
   */
  private boolean advance(long timeNanos) {
    long epoch = Math.floorDiv(timeNanos - origin, width);
    if (epoch > liveEpoch) {
      if (timeNanos - timeSource.nanoTime() > width) {
        return false;
      }
      liveEpoch = epoch;
    }
    return true;
  }

  @Override
  public Duration length() {
    return config.length();
  }

  @Override
  public TimeSource timeSource() {
    return timeSource;
  }

  @Override
  public synchronized long footprintBytes() {
    long bytes = OBJECT_BYTES + 16 + 4L * ring.length;
    if (retiredSlots != null) {
      bytes +=
          Bucket.BYTES + 16 + 4L * retiredSlots.slots.length + 16 + 8L * retiredSlots.counts.length;
    }
    for (Bucket b : ring) {
      if (b != null) {
        bytes += Bucket.BYTES + 16 + 4L * b.slots.length + 16 + 8L * b.counts.length;
      }
    }
    return bytes;
  }

  /** One bucket's samples: exact count, sum, min, max and rejected, plus sorted sparse slots. */
  private static final class Bucket {
    static final long BYTES = 72;
    private static final int[] NO_SLOTS = {};
    private static final long[] NO_COUNTS = {};

    long epoch;
    long sum;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long rejected;
    int[] slots = NO_SLOTS;
    long[] counts = NO_COUNTS;
    int distinct;

    Bucket(long epoch) {
      this.epoch = epoch;
    }

    long count() {
      long n = 0;
      for (int k = 0; k < distinct; k++) {
        n += counts[k];
      }
      return n;
    }

    /** Empties the bucket for reuse at {@code epoch}, keeping its arrays. */
    void reset(long epoch) {
      this.epoch = epoch;
      sum = 0;
      min = Long.MAX_VALUE;
      max = Long.MIN_VALUE;
      rejected = 0;
      distinct = 0;
    }

    /**
     * Adds every slot of {@code other} to this one's: in place when this one already holds them,
     * else merged from the end into arrays grown by half.
     */
    void addAll(Bucket other) {
      int fresh = 0;
      for (int i = 0, j = 0; j < other.distinct; ) {
        if (i < distinct && slots[i] < other.slots[j]) {
          i++;
        } else {
          fresh += i < distinct && slots[i] == other.slots[j] ? 0 : 1;
          j++;
        }
      }
      int n = distinct + fresh;
      if (n > slots.length) {
        int capacity = Math.max(n, distinct + (distinct >> 1) + 1);
        slots = Arrays.copyOf(slots, capacity);
        counts = Arrays.copyOf(counts, capacity);
      }
      for (int i = distinct - 1, j = other.distinct - 1, k = n - 1; j >= 0; k--) {
        if (i >= 0 && slots[i] > other.slots[j]) {
          slots[k] = slots[i];
          counts[k] = counts[i--];
        } else if (i >= 0 && slots[i] == other.slots[j]) {
          slots[k] = slots[i];
          counts[k] = counts[i--] + other.counts[j--];
        } else {
          slots[k] = other.slots[j];
          counts[k] = other.counts[j--];
        }
      }
      distinct = n;
      sum += other.sum;
      min = Math.min(min, other.min);
      max = Math.max(max, other.max);
    }

    void add(int slot, long value) {
      int at = Arrays.binarySearch(slots, 0, distinct, slot);
      if (at < 0) {
        at = -at - 1;
        if (distinct == slots.length) {
          int capacity = Math.max(2, distinct + (distinct >> 1) + 1);
          slots = Arrays.copyOf(slots, capacity);
          counts = Arrays.copyOf(counts, capacity);
        }
        System.arraycopy(slots, at, slots, at + 1, distinct - at);
        System.arraycopy(counts, at, counts, at + 1, distinct - at);
        slots[at] = slot;
        counts[at] = 0;
        distinct++;
      }
      counts[at]++;
      sum += value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
  }
}
