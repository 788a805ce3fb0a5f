package io.ringtail.anomaly;

/**
 * How far a value falls outside the range the series has taken: a high and a low envelope that jump
 * to any new extreme and otherwise relax toward the recent median by {@code 1 / relax} of their
 * distance per point, so an old extreme is forgotten over about {@code relax} points. The raw score
 * is {@code e / (e + scale)} for an excess {@code e} measured in envelope widths: 0 inside the
 * range. Not thread-safe.
 */
final class RangeNovelty {
  private final double relax;
  private final double scale;
  private double high = Double.NaN;
  private double low = Double.NaN;

  RangeNovelty(double relax, double scale) {
    this.relax = relax;
    this.scale = scale;
  }

  /** The raw score of {@code x}; then widens or relaxes the envelope toward {@code median}. */
  double next(double x, double median) {
    if (Double.isNaN(high)) {
      high = x;
      low = x;
      return 0.0;
    }
    double width = high - low;
    double excess = Math.max(0.0, Math.max(x - high, low - x));
    double e = excess / (width + 1e-9 * Math.abs(high) + 1e-12);
    double raw = Double.isInfinite(e) ? 1.0 : e / (e + scale);
    double center = Double.isNaN(median) ? x : median;
    high = Math.max(x, high - (high - center) / relax);
    low = Math.min(x, low + (center - low) / relax);
    return raw;
  }

  static long footprintBytes() {
    return 16 + 4 * 8;
  }
}
