package io.ringtail;

import org.HdrHistogram.Histogram;

/**
 * Maps values to slots of a dense count array laid out exactly as HdrHistogram lays out its counts
 * for the same (lowest discernible value, highest trackable value, significant digits).
 *
 * <p>Why not HdrHistogram's own: the windows keep their counts in arrays they own and work on them
 * slot by slot (added into a stripe's accumulator, summed into the window total and subtracted when
 * a bucket leaves, sealed into a sparse list of slots), which needs the index HdrHistogram does not
 * expose. A snapshot's counts go back into HdrHistogram through {@link #valueAt(int)}; the tests
 * check that {@code valueAt(indexOf(v))} is HdrHistogram's {@code lowestEquivalentValue(v)} for
 * every configuration the builder accepts.
 */
final class BucketLayout {
  /** {@link #largestLowestDiscernibleValue} for 0 to 5 significant digits. */
  private static final long[] LARGEST_LOWEST = new long[6];

  private final long lowestDiscernibleValue;
  private final long highestTrackableValue;
  private final int significantDigits;
  private final int unitMagnitude;
  private final int subBucketHalfCountMagnitude;
  private final int subBucketHalfCount;
  private final long subBucketMask;
  private final int leadingZeroCountBase;
  private final int length;

  private BucketLayout(
      long lowestDiscernibleValue, long highestTrackableValue, int significantDigits) {
    this.lowestDiscernibleValue = lowestDiscernibleValue;
    this.highestTrackableValue = highestTrackableValue;
    this.significantDigits = significantDigits;
    int subBucketCountMagnitude = subBucketCountMagnitude(significantDigits);
    this.subBucketHalfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
    int subBucketCount = 1 << (subBucketHalfCountMagnitude + 1);
    this.subBucketHalfCount = subBucketCount / 2;
    this.unitMagnitude = unitMagnitude(lowestDiscernibleValue);
    this.subBucketMask = ((long) subBucketCount - 1) << unitMagnitude;
    this.leadingZeroCountBase = 64 - unitMagnitude - subBucketHalfCountMagnitude - 1;

    long smallestUntrackableValue = ((long) subBucketCount) << unitMagnitude;
    int bucketsNeeded = 1;
    while (smallestUntrackableValue <= highestTrackableValue) {
      if (smallestUntrackableValue > Long.MAX_VALUE / 2) {
        bucketsNeeded++;
        break;
      }
      smallestUntrackableValue <<= 1;
      bucketsNeeded++;
    }
    this.length = (bucketsNeeded + 1) * subBucketHalfCount;
  }

  /**
   * {@code log2(lowestDiscernibleValue)} rounded down, computed in floating point exactly as
   * HdrHistogram computes it: for values just below a power of two from 2<sup>48</sup> up, this
   * rounds to that power, and the layout must agree with HdrHistogram's.
   */
  static int unitMagnitude(long lowestDiscernibleValue) {
    return (int) (Math.log(lowestDiscernibleValue) / Math.log(2));
  }

  /**
   * How many bits the sub-buckets of {@code significantDigits} digits need, as HdrHistogram counts
   * them.
   */
  static int subBucketCountMagnitude(int significantDigits) {
    long largestValueWithSingleUnitResolution = 2 * (long) Math.pow(10, significantDigits);
    return (int) Math.ceil(Math.log(largestValueWithSingleUnitResolution) / Math.log(2));
  }

  /**
   * The largest lowest discernible value HdrHistogram accepts at {@code significantDigits} (0 to
   * 5): at most {@code Long.MAX_VALUE / 2}, and its unit magnitude plus the sub-bucket bits at most
   * 62, so that the first bucket's top, {@code subBucketCount << unitMagnitude}, is a positive
   * {@code long}. Any larger value would overflow that shift.
   */
  static long largestLowestDiscernibleValue(int significantDigits) {
    return LARGEST_LOWEST[significantDigits];
  }

  static {
    for (int digits = 0; digits < LARGEST_LOWEST.length; digits++) {
      int maxUnitMagnitude = 62 - subBucketCountMagnitude(digits);
      long lo = 1;
      long hi = Long.MAX_VALUE / 2;
      while (lo < hi) { // the largest v with unitMagnitude(v) <= max; unitMagnitude never decreases
        long mid = lo + (hi - lo + 1) / 2;
        if (unitMagnitude(mid) <= maxUnitMagnitude) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      LARGEST_LOWEST[digits] = lo;
    }
  }

  static BucketLayout of(WindowConfig config) {
    return of(
        config.lowestDiscernibleValue(),
        config.highestTrackableValue(),
        config.significantDigits());
  }

  static BucketLayout of(
      long lowestDiscernibleValue, long highestTrackableValue, int significantDigits) {
    return new BucketLayout(lowestDiscernibleValue, highestTrackableValue, significantDigits);
  }

  /** An empty HdrHistogram with this layout. */
  Histogram newHistogram() {
    return new Histogram(lowestDiscernibleValue, highestTrackableValue, significantDigits);
  }

  long lowestDiscernibleValue() {
    return lowestDiscernibleValue;
  }

  long highestTrackableValue() {
    return highestTrackableValue;
  }

  int significantDigits() {
    return significantDigits;
  }

  /** Whether a value maps to the same slot in both layouts (their lengths may differ). */
  boolean sharesSlotsWith(BucketLayout other) {
    return lowestDiscernibleValue == other.lowestDiscernibleValue
        && significantDigits == other.significantDigits;
  }

  /** Slots in the dense array. */
  int length() {
    return length;
  }

  /** The slot of a value in {@code [0, highestTrackableValue]}. */
  int indexOf(long value) {
    int bucketIndex = leadingZeroCountBase - Long.numberOfLeadingZeros(value | subBucketMask);
    int subBucketIndex = (int) (value >>> (bucketIndex + unitMagnitude));
    return ((bucketIndex + 1) << subBucketHalfCountMagnitude)
        + (subBucketIndex - subBucketHalfCount);
  }

  /** The lowest value that maps to {@code index}. */
  long valueAt(int index) {
    int bucketIndex = (index >> subBucketHalfCountMagnitude) - 1;
    int subBucketIndex = (index & (subBucketHalfCount - 1)) + subBucketHalfCount;
    if (bucketIndex < 0) {
      subBucketIndex -= subBucketHalfCount;
      bucketIndex = 0;
    }
    return ((long) subBucketIndex) << (bucketIndex + unitMagnitude);
  }
}
