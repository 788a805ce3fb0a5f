package io.ringtail.benchmarks.toolkit;

import java.util.Locale;

/** How the reports write numbers into their markdown: one locale, units that read at a glance. */
public final class Format {
  private Format() {}

  /** {@link String#format} in the root locale, so a report reads the same on every machine. */
  public static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  /** Nanoseconds: two decimals below 10, one above; a dash for NaN. */
  public static String ns(double v) {
    return Double.isNaN(v) ? "—" : fmt(v < 10 ? "%.2f" : "%.1f", v);
  }

  /** Bytes per operation: 0 below 0.01, grouped from 1,000; a dash for NaN. */
  public static String bytesPerOp(double v) {
    return Double.isNaN(v) ? "—" : v < 0.01 ? "0" : fmt(v >= 1000 ? "%,.0f" : "%.1f", v);
  }

  /** Microseconds, in ms from 1,000; a dash for NaN. */
  public static String micros(double v) {
    if (Double.isNaN(v)) {
      return "—";
    }
    return v >= 1000 ? fmt("%.1f ms", v / 1000) : fmt(v >= 10 ? "%.0f µs" : "%.1f µs", v);
  }

  /** A size in B, KiB or MiB; a dash when negative (unknown). */
  public static String size(long bytes) {
    if (bytes < 0) {
      return "—";
    }
    if (bytes < 1024) {
      return bytes + " B";
    }
    return bytes < 1024 * 1024
        ? fmt("%.1f KiB", bytes / 1024.0)
        : fmt("%.2f MiB", bytes / (1024.0 * 1024));
  }

  /** A count as 1k, 100k, 1M. */
  public static String count(int n) {
    return n >= 1_000_000 ? n / 1_000_000 + "M" : n >= 1000 ? n / 1000 + "k" : Integer.toString(n);
  }
}
