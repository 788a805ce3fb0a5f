package io.ringtail;

/** Argument checks with messages that name the parameter and the rejected value. */
final class Requirements {
  private Requirements() {}

  static long requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, but was " + value);
    }
    return value;
  }

  static long requireAtLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", but was " + value);
    }
    return value;
  }

  static long requireBetween(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ", but was " + value);
    }
    return value;
  }

  static double requirePercentile(double percentile) {
    if (!(percentile >= 0.0 && percentile <= 100.0)) {
      throw new IllegalArgumentException(
          "percentile must be between 0 and 100, but was " + percentile);
    }
    return percentile;
  }
}
