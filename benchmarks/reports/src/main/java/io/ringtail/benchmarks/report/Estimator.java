package io.ringtail.benchmarks.report;

import java.util.Arrays;

/** How one benchmark's measurement iterations become its figure. */
enum Estimator {
  /** The median iteration: robust to a few iterations slowed by other load. */
  MEDIAN,
  /** The fastest iteration: the closest a loaded machine gets to the uncontended cost. */
  MIN;

  double of(double[] scores) {
    double[] sorted = scores.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    if (this == MIN) {
      return sorted[0];
    }
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
