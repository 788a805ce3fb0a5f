package io.ringtail;

import io.ringtail.internal.Checks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What a rolling window held over one interval of time: the one view that Micrometer gauges, alert
 * rules, examples and every window implementation (in-process or in Redis) share.
 *
 * <p>Immutable and thread-safe. The interval is {@code [startNanos, endNanos]} in the window's time
 * base, both ends inclusive. An empty window has {@link #count()} zero and reports {@link
 * Double#NaN} for mean, min, max and every percentile, so it is never mistaken for a window of
 * zero-valued samples. Percentiles are nearest-rank (see {@link RollingWindow}).
 */
public interface WindowSnapshot {

  /** Samples in the interval; exact. */
  long count();

  /** Sum of the samples in the interval; exact. */
  long sum();

  /** Samples rejected as out of range in the interval. */
  long rejected();

  /** {@code sum / count}, or NaN when empty. */
  default double mean() {
    return count() == 0 ? Double.NaN : (double) sum() / count();
  }

  /** The smallest sample, exact, or NaN when empty. */
  double min();

  /** The largest sample, exact, or NaN when empty. */
  double max();

  /**
   * The nearest-rank value at {@code percentile} (0 to 100): the {@code ceil(p/100 * count)}-th
   * smallest sample, within the window's precision; NaN when empty.
   *
   * @throws IllegalArgumentException if percentile is outside 0..100 or NaN
   */
  double valueAtPercentile(double percentile);

  /**
   * The fraction (0 to 1) of samples strictly above {@code value}, within the window's precision
   * (samples within one resolution step of {@code value} may count on either side); NaN when empty.
   * The default searches the nearest-rank percentiles by bisection, about {@code log2(count)}
   * percentile reads, so it holds for any implementation; a snapshot that can count directly
   * overrides it.
   */
  default double fractionAbove(long value) {
    long n = count();
    if (n == 0) {
      return Double.NaN;
    }
    if (max() <= value) {
      return 0.0;
    }
    if (min() > value) {
      return 1.0;
    }
    long atOrBelow = 1;
    long above = n;
    while (above - atOrBelow > 1) {
      long rank = atOrBelow + (above - atOrBelow) / 2;
      // nearest rank ceil(p/100 * n) of p = 100 * (rank - 1/4) / n is rank, with a margin against
      // rounding
      if (valueAtPercentile(Math.min(100.0, 100.0 * (rank - 0.25) / n)) <= value) {
        atOrBelow = rank;
      } else {
        above = rank;
      }
    }
    return (double) (n - atOrBelow) / n;
  }

  /** First instant of the covered interval, inclusive, in the window's time base (nanoseconds). */
  long startNanos();

  /** Last instant of the covered interval, inclusive (the time the snapshot was taken). */
  long endNanos();

  /**
   * The window's totals since it was created, as of this snapshot (see {@link WindowTotals}), or
   * empty if the window keeps none. In-process windows (striped, compact, and so each key of a
   * keyed collection) keep them; a Redis window reports what this process published to it.
   */
  default Optional<WindowTotals> totals() {
    return Optional.empty();
  }

  /** Whether no sample fell in the interval. */
  default boolean isEmpty() {
    return count() == 0;
  }

  /**
   * The samples of {@code parts} as one snapshot (several keys of an endpoint, several windows):
   * count, sum and rejected add, min and max combine, the interval spans them all, totals add when
   * every part carries them. In-process snapshots ({@link HistogramSnapshot}) {@linkplain
   * HistogramSnapshot#merge merge} exactly; any other mix gives a view whose percentiles are
   * searched by bisection over the parts' {@link #fractionAbove}, as exact as the parts' resolution
   * (a fleet summary's: exact at its carried percentiles, an upper bound between them). One part is
   * returned as it is.
   *
   * @throws IllegalArgumentException if {@code parts} is empty
   * @throws NullPointerException if it is null or holds null
   */
  static WindowSnapshot pooled(Collection<? extends WindowSnapshot> parts) {
    Checks.requireNonNull("parts", parts);
    if (parts.isEmpty()) {
      throw Checks.invalid("parts", "at least one snapshot", parts);
    }
    List<WindowSnapshot> list = new ArrayList<>(parts.size());
    boolean histograms = true;
    for (WindowSnapshot p : parts) {
      Checks.requireNonNull("each of parts", p);
      list.add(p);
      histograms &= p instanceof HistogramSnapshot;
    }
    if (list.size() == 1) {
      return list.get(0);
    }
    if (!histograms) {
      return new PooledSnapshot(list);
    }
    HistogramSnapshot merged = (HistogramSnapshot) list.get(0);
    for (int i = 1; i < list.size(); i++) {
      merged = merged.merge((HistogramSnapshot) list.get(i));
    }
    return merged;
  }
}
