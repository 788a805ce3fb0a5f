package io.ringtail;

import java.util.Arrays;

/**
 * An exact snapshot over sorted values, nearest-rank as WindowSnapshot defines it: a test model.
 */
record ExactSnapshot(long[] sorted) implements WindowSnapshot {
  @Override
  public long count() {
    return sorted.length;
  }

  @Override
  public long sum() {
    return Arrays.stream(sorted).sum();
  }

  @Override
  public long rejected() {
    return 0;
  }

  @Override
  public double min() {
    return sorted.length == 0 ? Double.NaN : sorted[0];
  }

  @Override
  public double max() {
    return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
  }

  @Override
  public long startNanos() {
    return 0;
  }

  @Override
  public long endNanos() {
    return 0;
  }

  @Override
  public double valueAtPercentile(double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.max(1, Math.ceil(p / 100.0 * sorted.length));
    return sorted[rank - 1];
  }
}
