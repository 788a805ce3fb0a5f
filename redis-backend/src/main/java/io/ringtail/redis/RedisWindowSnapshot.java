package io.ringtail.redis;

import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * What a {@link RedisRollingWindow} held at one instant: exact count, sum, min, max and the exact
 * values at the nearest ranks fetched by the snapshot script. Immutable and thread-safe.
 */
final class RedisWindowSnapshot implements WindowSnapshot {
  private final long count;
  private final long sum;
  private final long rejected;
  private final long startNanos;
  private final long endNanos;
  private final long[] ranks;
  private final long[] values;
  private final WindowTotals totals;

  RedisWindowSnapshot(
      long count,
      long sum,
      long rejected,
      long startNanos,
      long endNanos,
      long[] ranks,
      long[] values,
      WindowTotals totals) {
    this.count = count;
    this.sum = sum;
    this.rejected = rejected;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
    this.ranks = ranks;
    this.values = values;
    this.totals = totals;
  }

  static RedisWindowSnapshot empty(
      long rejected, long startNanos, long endNanos, WindowTotals totals) {
    return new RedisWindowSnapshot(
        0, 0, rejected, startNanos, endNanos, new long[0], new long[0], totals);
  }

  /**
   * What the process that took this snapshot published to the window (see {@link
   * RedisRollingWindow}).
   */
  @Override
  public Optional<WindowTotals> totals() {
    return Optional.of(totals);
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long sum() {
    return sum;
  }

  @Override
  public long rejected() {
    return rejected;
  }

  @Override
  public double min() {
    return count == 0 ? Double.NaN : values[0];
  }

  @Override
  public double max() {
    return count == 0 ? Double.NaN : values[1];
  }

  /**
   * The exact nearest-rank value if its rank was fetched; otherwise the value at the smallest
   * fetched rank above it (an upper bound; the max is always fetched).
   */
  @Override
  public double valueAtPercentile(double percentile) {
    Checks.requirePercentile(percentile);
    if (count == 0) {
      return Double.NaN;
    }
    long rank =
        Math.max(
            1,
            BigDecimal.valueOf(percentile)
                .multiply(BigDecimal.valueOf(count))
                .divide(BigDecimal.valueOf(100), 0, RoundingMode.CEILING)
                .longValueExact());
    long bestRank = Long.MAX_VALUE;
    long best = values[1];
    for (int i = 0; i < ranks.length; i++) {
      if (ranks[i] == rank) {
        return values[i];
      }
      if (ranks[i] > rank && ranks[i] < bestRank) {
        bestRank = ranks[i];
        best = values[i];
      }
    }
    return best;
  }

  @Override
  public long startNanos() {
    return startNanos;
  }

  @Override
  public long endNanos() {
    return endNanos;
  }

  @Override
  public String toString() {
    return "RedisWindowSnapshot[count="
        + count
        + ", sum="
        + sum
        + ", rejected="
        + rejected
        + ", min="
        + min()
        + ", max="
        + max()
        + ", interval=["
        + startNanos
        + ", "
        + endNanos
        + "]]";
  }
}
