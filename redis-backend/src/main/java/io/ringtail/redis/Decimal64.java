package io.ringtail.redis;

import java.time.Duration;

/**
 * The 20-digit decimal strings the decision scripts compute with exactly (see decimal64.lua):
 * times are nanoseconds shifted by 2<sup>63</sup> so that signed readings order as unsigned text.
 */
final class Decimal64 {
  private static final String ZEROS = "00000000000000000000";

  private Decimal64() {}

  static String time(long nanos) {
    return pad(Long.toUnsignedString(nanos ^ Long.MIN_VALUE));
  }

  static String of(long nonNegative) {
    return pad(Long.toString(nonNegative));
  }

  static long parse(Object digits) {
    return Long.parseLong((String) digits);
  }

  static Duration duration(Object digits) {
    return Duration.ofNanos(parse(digits));
  }

  private static String pad(String digits) {
    return ZEROS.substring(digits.length()) + digits;
  }
}
