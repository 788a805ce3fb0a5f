package io.ringtail.anomaly;

/**
 * Turns a raw score into how unusual it is for this series: the upper-tail probability of the raw
 * score under a normal fit of the raw scores seen before it (an exponentially weighted mean and
 * variance over about {@code horizon} points), as Numenta's anomaly likelihood does for its
 * detectors' raw scores. The result is {@code Phi((raw - mean) / sd)} with {@code sd} at least
 * {@code minSd}: near 1 for a raw score far above what the series usually gives, whatever scale its
 * raw scores have. Not thread-safe.
 */
final class Likelihood {
  private static final double SQRT_2 = Math.sqrt(2.0);

  private final double horizon;
  private final double minVariance;
  private double mean;
  private double variance;
  private long count;

  Likelihood(int horizon, double minSd) {
    this.horizon = horizon;
    this.minVariance = minSd * minSd;
  }

  /** The likelihood of {@code raw} (finite, in [0, 1]) given the earlier ones; then learns it. */
  double next(double raw) {
    double out = 0.0;
    if (count >= 2) {
      double z = (raw - mean) / Math.sqrt(Math.max(variance, minVariance));
      out = 1.0 - 0.5 * erfc(z / SQRT_2);
    }
    double a = Math.max(1.0 / horizon, 1.0 / (count + 1));
    double d = raw - mean;
    mean += a * d;
    variance = (1.0 - a) * (variance + a * d * d);
    count++;
    return out;
  }

  /**
   * The complementary error function, within 1.2e-7 relative error everywhere (the Chebyshev fit of
   * Numerical Recipes' {@code erfcc}).
   */
  static double erfc(double x) {
    double z = Math.abs(x);
    double t = 1.0 / (1.0 + 0.5 * z);
    double poly =
        -1.26551223
            + t
                * (1.00002368
                    + t
                        * (0.37409196
                            + t
                                * (0.09678418
                                    + t
                                        * (-0.18628806
                                            + t
                                                * (0.27886807
                                                    + t
                                                        * (-1.13520398
                                                            + t
                                                                * (1.48851587
                                                                    + t
                                                                        * (-0.82215223
                                                                            + t
                                                                                * 0.17087277))))))));
    double r = t * Math.exp(-z * z + poly);
    return x >= 0 ? r : 2.0 - r;
  }

  static long footprintBytes() {
    return 16 + 5 * 8;
  }
}
