package io.ringtail.examples.dashboard;

import java.util.Locale;

/** Terminal formatting helpers. Stateless. */
final class Format {
  private Format() {}

  static String millis(double ms) {
    if (Double.isNaN(ms)) {
      return "-";
    }
    if (ms >= 1000) {
      return String.format(Locale.ROOT, "%.2f s", ms / 1000);
    }
    return String.format(Locale.ROOT, ms >= 100 ? "%.0f ms" : "%.1f ms", ms);
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
