package io.ringtail.anomaly;

/**
 * A two-sided CUSUM (Page's cumulative sum) of standardized values: each value is measured in mean
 * absolute deviations from a slow exponentially weighted baseline (about {@code horizon} points),
 * clipped to 6, and {@code S+ = max(0, S+ + z - slack)}, {@code S- = max(0, S- - z - slack)}. A
 * slow drift or a small lasting shift that no single value reveals adds up here. The raw score is
 * {@code S / (S + scale)} for the larger sum. Not thread-safe.
 */
final class Cusum {
  private static final int MIN_POINTS = 16;

  private final double horizon;
  private final double slack;
  private final double scale;
  private double mean = Double.NaN;
  private double deviation;
  private double up;
  private double down;
  private long count;

  Cusum(int horizon, double slack, double scale) {
    this.horizon = horizon;
    this.slack = slack;
    this.scale = scale;
  }

  /** The raw score of {@code x}; then learns it. */
  double next(double x) {
    double raw = 0.0;
    if (Double.isNaN(mean)) {
      mean = x;
    } else {
      if (count >= MIN_POINTS) {
        // mean absolute deviation * sqrt(pi / 2) estimates a normal standard deviation
        double sd = Math.max(deviation * 1.2533, 1e-9 * Math.abs(mean) + 1e-12);
        double z = Math.max(-6.0, Math.min(6.0, (x - mean) / sd));
        up = Math.max(0.0, up + z - slack);
        down = Math.max(0.0, down - z - slack);
        double s = Math.max(up, down);
        raw = s / (s + scale);
      }
      double a = Math.max(1.0 / horizon, 1.0 / (count + 1));
      deviation += a * (Math.abs(x - mean) - deviation);
      mean += a * (x - mean);
    }
    count++;
    return raw;
  }

  static long footprintBytes() {
    return 16 + 8 * 8;
  }
}
