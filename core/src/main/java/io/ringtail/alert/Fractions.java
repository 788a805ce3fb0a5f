package io.ringtail.alert;

import io.ringtail.WindowSnapshot;

/** Fractions of a snapshot's samples derived from its nearest-rank percentiles. */
final class Fractions {
  private Fractions() {}

  /**
   * The fraction of samples above {@code target}. The r-th smallest sample (1-based) is
   * {@code valueAtPercentile(100 * (r - 1/4) / n)}: nearest rank {@code ceil((r - 1/4))} = r, with
   * a margin against rounding. Values rise with rank, so the largest rank at or below the target
   * is found by bisection between the min (rank 1) and the max (rank n).
   */
  static double above(WindowSnapshot s, long target) {
    long n = s.count();
    if (n == 0) {
      return Double.NaN;
    }
    if (s.max() <= target) {
      return 0.0;
    }
    if (s.min() > target) {
      return 1.0;
    }
    long lo = 1;
    long hi = n;
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (valueAtRank(s, mid, n) <= target) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (double) (n - lo) / n;
  }

  private static double valueAtRank(WindowSnapshot s, long rank, long n) {
    return s.valueAtPercentile(Math.min(100.0, 100.0 * (rank - 0.25) / n));
  }
}
