package io.ringtail;

import io.ringtail.internal.Checks;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CumulativeHistogram}'s counts in base-2 exponential buckets, the layout of Prometheus's
 * native histograms and OpenTelemetry's exponential histograms: at scale {@code s} the base is
 * {@code 2^(2^-s)}, and bucket {@code i} holds the values {@code v} with {@code base^i < v <=
 * base^(i+1)} (OpenTelemetry's index; Prometheus numbers the same bucket {@code i + 1}). Values at
 * most 0 count in the zero bucket.
 *
 * <p>Each window slot counts, whole, in the bucket of its highest value. A sample therefore lands
 * in its own bucket or, when its slot straddles a boundary, in the next one up: at most one slot
 * width (a relative 10<sup>-d</sup> at d significant digits, at most 2 10<sup>-d</sup>) above its
 * own value. Read with {@link CumulativeHistogram#exponentialBuckets}.
 *
 * <p>Immutable.
 */
public final class ExponentialBuckets {
  private final int scale;
  private final long zeroCount;
  private final int offset;
  private final long[] counts;

  private ExponentialBuckets(int scale, long zeroCount, int offset, long[] counts) {
    this.scale = scale;
    this.zeroCount = zeroCount;
    this.offset = offset;
    this.counts = counts;
  }

  /**
   * The finest scale whose buckets are no narrower than the slots of a window with {@code
   * significantDigits}: 6 at 2 digits (buckets 1.1 % wide), 8 (the finest Prometheus takes) at 3 or
   * more; from -4 up.
   */
  public static int scaleFor(int significantDigits) {
    int subBucketHalfMagnitude = BucketLayout.subBucketCountMagnitude(significantDigits) - 1;
    return Math.max(-4, Math.min(8, subBucketHalfMagnitude - 1));
  }

  static ExponentialBuckets of(CumulativeHistogram histogram, int scale, double unit) {
    if (scale < -10 || scale > 20) {
      throw Checks.invalid("scale", "-10 to 20", scale);
    }
    if (!(unit > 0) || Double.isInfinite(unit)) {
      throw Checks.invalid("unit", "positive and finite", unit);
    }
    HistogramSnapshot slots = histogram.counts();
    int[] bucketOfSlot = table(slots.layout(), scale, unit);
    long zero = 0;
    int first = 0;
    long[] counts = new long[16];
    int used = 0;
    for (int i = 0, n = slots.entries(); i < n; i++) {
      long c = slots.countAt(i);
      if (c == 0) {
        continue;
      }
      int bucket = bucketOfSlot[slots.slotAt(i)];
      if (bucket == ZERO) {
        zero += c;
        continue;
      }
      if (used == 0) {
        first = bucket;
      }
      int at = bucket - first;
      if (at >= counts.length) {
        counts = Arrays.copyOf(counts, Math.max(at + 1, counts.length * 2));
      }
      counts[at] += c;
      used = Math.max(used, at + 1);
    }
    return new ExponentialBuckets(scale, zero, first, Arrays.copyOf(counts, used));
  }

  /** A slot of values at most zero. */
  private static final int ZERO = Integer.MIN_VALUE;

  private record TableKey(long lowest, int digits, int length, int scale, long unitBits) {}

  /** Slot-to-bucket tables by layout, scale and unit; a few per process, rebuilt if many. */
  private static final Map<TableKey, int[]> TABLES = new ConcurrentHashMap<>();

  /**
   * The bucket of each slot of {@code layout} (its highest value times {@code unit}), or {@link
   * #ZERO}: built once per layout, scale and unit, so an export costs a lookup per slot.
   */
  private static int[] table(BucketLayout layout, int scale, double unit) {
    TableKey key =
        new TableKey(
            layout.lowestDiscernibleValue(),
            layout.significantDigits(),
            layout.length(),
            scale,
            Double.doubleToLongBits(unit));
    int[] table = TABLES.get(key);
    if (table == null) {
      table = new int[layout.length()];
      double upper = Double.NaN; // upper bound of the bucket last assigned
      int index = 0;
      for (int slot = 0; slot < table.length; slot++) {
        double v = (layout.valueAt(slot + 1) - 1) * unit;
        if (v <= 0) {
          table[slot] = ZERO;
          continue;
        }
        if (!(v <= upper)) {
          index = indexOf(v, scale);
          upper = lowerBoundary(index + 1, scale);
        }
        table[slot] = index;
      }
      if (TABLES.size() >= 64) {
        TABLES.clear();
      }
      TABLES.put(key, table);
    }
    return table;
  }

  /** The bucket holding {@code v > 0}: {@code base^i < v <= base^(i+1)}. */
  static int indexOf(double v, int scale) {
    int i = (int) Math.ceil(Math.scalb(Math.log(v) / Math.log(2), scale)) - 1;
    while (lowerBoundary(i + 1, scale) < v) {
      i++;
    }
    while (lowerBoundary(i, scale) >= v) {
      i--;
    }
    return i;
  }

  /** {@code base^index}. */
  static double lowerBoundary(int index, int scale) {
    return Math.pow(2.0, Math.scalb((double) index, -scale));
  }

  /** The scale: the base is {@code 2^(2^-scale)}. */
  public int scale() {
    return scale;
  }

  /** Samples at or below zero. */
  public long zeroCount() {
    return zeroCount;
  }

  /** The index of the first bucket held (OpenTelemetry's numbering). */
  public int offset() {
    return offset;
  }

  /** Buckets held, from {@link #offset()} on; 0 when every sample is in the zero bucket. */
  public int length() {
    return counts.length;
  }

  /** The count of bucket {@code offset() + i}, {@code i} from 0 to {@code length() - 1}. */
  public long countAt(int i) {
    return counts[i];
  }

  /** The lower boundary of bucket {@code index} (exclusive): {@code base^index}. */
  public double lowerBoundary(int index) {
    return lowerBoundary(index, scale);
  }

  /** Samples in every bucket, the zero bucket included. */
  public long totalCount() {
    long n = zeroCount;
    for (long c : counts) {
      n += c;
    }
    return n;
  }
}
