package io.ringtail;

import static io.ringtail.internal.Checks.invalid;
import static io.ringtail.internal.Checks.requireAtLeast;
import static io.ringtail.internal.Checks.requireBetween;
import static io.ringtail.internal.Checks.requirePositiveNanos;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The immutable shape of a rolling window: how long it is, how many buckets it rotates through, and
 * how precisely its histogram resolves values.
 *
 * <p>Built fluently and validated by {@link Builder#build()}: a null throws {@link
 * NullPointerException} and a bad value {@link IllegalArgumentException}, each naming the
 * parameter. The value ranges accepted are exactly HdrHistogram's. Defaults suit latencies in
 * nanoseconds: 60 s in 60 buckets, 2 significant digits (values resolved to within 1 %), values
 * from 1 ns to 1 h, and one recording stripe per available processor (at most 4).
 *
 * <p>Memory: the window created by {@link RollingWindow#create} keeps two dense count arrays per
 * stripe (double-buffered) plus two for the live bucket and the window total, each {@link
 * #countsArrayLength()} longs (4,608 longs, 36 KiB at the defaults), and, per completed bucket,
 * only the slots that bucket saw (two to three bytes each). The defaults with two stripes hold 217
 * KiB empty and about 350 KiB filled at 10k samples/s, after one minute as after an hour (a
 * bucket's storage is sized to what it holds). Stripes added under contention cost two dense arrays
 * each. {@link RollingWindow#footprintBytes()} reports the live figure.
 */
public final class WindowConfig {
  /** Most buckets a window may have. */
  public static final int MAX_BUCKETS = 1 << 20;

  /** Most recording stripes a window may have. */
  public static final int MAX_STRIPES = 64;

  private static final WindowConfig DEFAULTS = builder().build();

  private final Duration length;
  private final int buckets;
  private final int significantDigits;
  private final long lowestDiscernibleValue;
  private final long highestTrackableValue;
  private final boolean cumulativeHistogram;
  private final int stripes;

  private WindowConfig(Builder b, int stripes) {
    this.length = b.length;
    this.buckets = b.buckets;
    this.significantDigits = b.significantDigits;
    this.lowestDiscernibleValue = b.lowestDiscernibleValue;
    this.highestTrackableValue = b.highestTrackableValue;
    this.cumulativeHistogram = b.cumulativeHistogram;
    this.stripes = stripes;
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The default configuration. */
  public static WindowConfig defaults() {
    return DEFAULTS;
  }

  /** A builder starting from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.length = length;
    b.buckets = buckets;
    b.significantDigits = significantDigits;
    b.lowestDiscernibleValue = lowestDiscernibleValue;
    b.highestTrackableValue = highestTrackableValue;
    b.stripes = stripes;
    b.cumulativeHistogram = cumulativeHistogram;
    return b;
  }

  /**
   * How far back a snapshot reaches: it covers between {@code length - bucketWidth} and {@code
   * length}.
   */
  public Duration length() {
    return length;
  }

  /** How many buckets the window rotates through. */
  public int buckets() {
    return buckets;
  }

  /** The time one bucket covers: {@code length / buckets}. */
  public Duration bucketWidth() {
    return Duration.ofNanos(bucketWidthNanos());
  }

  long bucketWidthNanos() {
    return length.toNanos() / buckets;
  }

  /** Decimal digits of value resolution: 2 means every value is resolved to within 1 %. */
  public int significantDigits() {
    return significantDigits;
  }

  /** Values from 0 up to this one share the finest resolution step. */
  public long lowestDiscernibleValue() {
    return lowestDiscernibleValue;
  }

  /** The largest value the window accepts; larger ones are rejected, not clamped. */
  public long highestTrackableValue() {
    return highestTrackableValue;
  }

  /**
   * How many independent recording stripes the window starts with. Each costs two dense count
   * arrays. A thread starts on the stripe of its id and moves when it meets another thread there; a
   * window whose writers keep colliding doubles its stripes at a rotation, up to the processor
   * count rounded up to a power of two (or this count, if higher).
   */
  public int stripes() {
    return stripes;
  }

  /**
   * Whether the window also keeps the distribution of every sample since it was created, read with
   * {@link RollingWindow#cumulativeHistogram()}: what aggregatable histogram exports (Prometheus,
   * OpenTelemetry) need.
   */
  public boolean cumulativeHistogram() {
    return cumulativeHistogram;
  }

  /** The length of each dense count array this configuration needs. */
  public int countsArrayLength() {
    return BucketLayout.of(this).length();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WindowConfig c
        && length.equals(c.length)
        && buckets == c.buckets
        && significantDigits == c.significantDigits
        && lowestDiscernibleValue == c.lowestDiscernibleValue
        && highestTrackableValue == c.highestTrackableValue
        && stripes == c.stripes
        && cumulativeHistogram == c.cumulativeHistogram;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        length,
        buckets,
        significantDigits,
        lowestDiscernibleValue,
        highestTrackableValue,
        stripes,
        cumulativeHistogram);
  }

  @Override
  public String toString() {
    return "WindowConfig[length="
        + length
        + ", buckets="
        + buckets
        + ", significantDigits="
        + significantDigits
        + ", lowestDiscernibleValue="
        + lowestDiscernibleValue
        + ", highestTrackableValue="
        + highestTrackableValue
        + ", stripes="
        + stripes
        + (cumulativeHistogram ? ", cumulativeHistogram" : "")
        + "]";
  }

  /** Fluent, reusable builder; {@link #build()} validates and may be called again. */
  public static final class Builder {
    private Duration length = Duration.ofSeconds(60);
    private int buckets = 60;
    private int significantDigits = 2;
    private long lowestDiscernibleValue = 1;
    private long highestTrackableValue = TimeUnit.HOURS.toNanos(1);
    private int stripes = defaultStripes();
    private boolean cumulativeHistogram;

    private Builder() {}

    /**
     * How far back the window reaches. Must be a positive whole number of nanoseconds per bucket.
     */
    public Builder length(Duration length) {
      this.length = length;
      return this;
    }

    /** How many buckets the window rotates through, 1 to {@value #MAX_BUCKETS}. */
    public Builder buckets(int buckets) {
      this.buckets = buckets;
      return this;
    }

    /** Decimal digits of value resolution, 0 to 5. */
    public Builder significantDigits(int significantDigits) {
      this.significantDigits = significantDigits;
      return this;
    }

    /**
     * The finest resolution step: at least 1, at most {@code Long.MAX_VALUE / 2}, and small enough
     * to leave room for the significant digits below 2<sup>62</sup> (at 2 digits, below about
     * 2<sup>54</sup>), as HdrHistogram requires.
     */
    public Builder lowestDiscernibleValue(long lowestDiscernibleValue) {
      this.lowestDiscernibleValue = lowestDiscernibleValue;
      return this;
    }

    /** The largest accepted value, at least twice the lowest discernible value. */
    public Builder highestTrackableValue(long highestTrackableValue) {
      this.highestTrackableValue = highestTrackableValue;
      return this;
    }

    /** Recording stripes, 1 to {@value #MAX_STRIPES}; rounded up to a power of two. */
    public Builder stripes(int stripes) {
      this.stripes = stripes;
      return this;
    }

    /**
     * Whether the window also keeps the distribution of every sample since it was created (default
     * false), for {@link RollingWindow#cumulativeHistogram()} and the histogram exports built on
     * it. Recording pays nothing for it: a bucket's counts are added when the bucket leaves the
     * live position. It costs one more dense count array in a striped window, and in a compact
     * window 12 bytes per slot that ever held a sample.
     */
    public Builder cumulativeHistogram(boolean keep) {
      this.cumulativeHistogram = keep;
      return this;
    }

    /** Validates every value and returns the immutable configuration. */
    public WindowConfig build() {
      long lengthNanos = requirePositiveNanos("length", length);
      requireBetween("buckets", buckets, 1, MAX_BUCKETS);
      if (lengthNanos % buckets != 0) {
        throw invalid(
            "length", "divisible into " + buckets + " buckets of whole nanoseconds", length);
      }
      requireBetween("significantDigits", significantDigits, 0, 5);
      requireBetween(
          "lowestDiscernibleValue",
          lowestDiscernibleValue,
          1,
          BucketLayout.largestLowestDiscernibleValue(significantDigits));
      requireAtLeast("highestTrackableValue", highestTrackableValue, 2 * lowestDiscernibleValue);
      requireBetween("stripes", stripes, 1, MAX_STRIPES);
      int roundedStripes =
          Integer.bitCount(stripes) == 1 ? stripes : Integer.highestOneBit(stripes) << 1;
      return new WindowConfig(this, roundedStripes);
    }

    private static int defaultStripes() {
      int cpus = Runtime.getRuntime().availableProcessors();
      int pow2 = Integer.highestOneBit(Math.max(1, cpus));
      if (pow2 < cpus) {
        pow2 <<= 1;
      }
      return Math.min(pow2, 4);
    }
  }
}
