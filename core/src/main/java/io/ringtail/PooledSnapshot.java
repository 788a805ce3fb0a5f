package io.ringtail;

import io.ringtail.internal.Checks;
import java.util.List;
import java.util.Optional;

/**
 * The samples of several snapshots as one, for snapshots that cannot {@linkplain
 * HistogramSnapshot#merge merge} (a fleet summary, a mix of kinds): count, sum and rejected add,
 * min and max combine, the interval spans them all, totals add when every part carries them; a
 * percentile is searched by bisection over the parts' {@link WindowSnapshot#fractionAbove} (as
 * exact as the parts' resolution), and {@link #fractionAbove} is the parts' weighted by their
 * counts. Immutable: built by {@link WindowSnapshot#pooled}.
 */
final class PooledSnapshot implements WindowSnapshot {
  private final List<WindowSnapshot> parts;
  private final long count;
  private final long sum;
  private final long rejected;
  private final double min;
  private final double max;
  private final long startNanos;
  private final long endNanos;
  private final WindowTotals totals;

  PooledSnapshot(List<WindowSnapshot> parts) {
    this.parts = parts;
    long n = 0;
    long s = 0;
    long r = 0;
    double lo = Double.NaN;
    double hi = Double.NaN;
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    WindowTotals t = null;
    boolean allTotals = true;
    for (WindowSnapshot p : parts) {
      n += p.count();
      s += p.sum();
      r += p.rejected();
      if (p.count() > 0) {
        lo = Double.isNaN(lo) ? p.min() : Math.min(lo, p.min());
        hi = Double.isNaN(hi) ? p.max() : Math.max(hi, p.max());
      }
      start = Math.min(start, p.startNanos());
      end = Math.max(end, p.endNanos());
      Optional<WindowTotals> pt = p.totals();
      allTotals &= pt.isPresent();
      t = pt.isEmpty() ? t : t == null ? pt.get() : t.plus(pt.get());
    }
    this.count = n;
    this.sum = s;
    this.rejected = r;
    this.min = lo;
    this.max = hi;
    this.startNanos = start;
    this.endNanos = end;
    this.totals = allTotals ? t : null;
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
    return min;
  }

  @Override
  public double max() {
    return max;
  }

  /**
   * The smallest value at or below which {@code ceil(p/100 * count)} of the pooled samples lie (at
   * least one), searched by bisection between min and max.
   */
  @Override
  public double valueAtPercentile(double percentile) {
    if (!(percentile >= 0.0 && percentile <= 100.0)) {
      throw Checks.invalid("percentile", "between 0 and 100", percentile);
    }
    if (count == 0) {
      return Double.NaN;
    }
    long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * count));
    long lo = (long) Math.floor(min);
    long hi = (long) Math.ceil(max);
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      if (atOrBelow(mid) >= rank) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private long atOrBelow(long value) {
    long n = 0;
    for (WindowSnapshot p : parts) {
      if (p.count() > 0) {
        n += Math.round(p.count() * (1.0 - p.fractionAbove(value)));
      }
    }
    return n;
  }

  @Override
  public double fractionAbove(long value) {
    return count == 0 ? Double.NaN : (double) (count - atOrBelow(value)) / count;
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
  public Optional<WindowTotals> totals() {
    return Optional.ofNullable(totals);
  }
}
