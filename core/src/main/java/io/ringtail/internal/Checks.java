package io.ringtail.internal;

import java.time.Duration;

/**
 * Argument checks shared by every Ringtail module, with messages that name the parameter and the
 * rejected value. Not API: this package may change in any release. Stateless and thread-safe.
 */
public final class Checks {
  private Checks() {}

  public static String requireKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must be non-empty, but was "
          + (key == null ? "null" : "\"\""));
    }
    return key;
  }

  public static String requireEventId(String eventId) {
    if (eventId == null || eventId.isEmpty()) {
      throw new IllegalArgumentException("eventId must be non-empty, but was "
          + (eventId == null ? "null" : "\"\""));
    }
    return eventId;
  }

  public static long requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, but was " + value);
    }
    return value;
  }

  public static long requireBetween(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ", but was " + value);
    }
    return value;
  }

  /** A positive duration, returned in nanoseconds. */
  public static long requirePositive(String name, Duration value) {
    long nanos = toNanos(name, value, "positive");
    if (nanos <= 0) {
      throw new IllegalArgumentException(name + " must be positive, but was " + value);
    }
    return nanos;
  }

  /** A duration of zero or more, returned in nanoseconds. */
  public static long requireNonNegative(String name, Duration value) {
    long nanos = toNanos(name, value, "zero or positive");
    if (nanos < 0) {
      throw new IllegalArgumentException(name + " must be zero or positive, but was " + value);
    }
    return nanos;
  }

  /** A non-null duration that fits in a long of nanoseconds; null is reported as not {@code requirement}. */
  private static long toNanos(String name, Duration value, String requirement) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must be " + requirement + ", but was null");
    }
    try {
      return value.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(name + " must fit in 292 years of nanoseconds, but was " + value);
    }
  }

  public static <T> T requireNonNull(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null, but was null");
    }
    return value;
  }
  public static long requireAtLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", but was " + value);
    }
    return value;
  }

  public static double requirePercentile(double percentile) {
    if (!(percentile >= 0.0 && percentile <= 100.0)) {
      throw new IllegalArgumentException(
          "percentile must be between 0 and 100, but was " + percentile);
    }
    return percentile;
  }
}
