package io.ringtail.alert;

import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;

/**
 * What a rule reads from a {@link WindowSnapshot}: a percentile, the mean, the count, the fraction
 * of samples above a target, or any function of the snapshot.
 *
 * <p>Implementations must be stateless and thread-safe. {@link Double#NaN} means "no data" (an
 * empty window): a rule never fires on it.
 */
@FunctionalInterface
public interface Measure {

  /** The measured value of {@code snapshot}, in the window's value units; NaN for no data. */
  double of(WindowSnapshot snapshot);

  /** The nearest-rank percentile (0 to 100: 95 for P95), NaN when empty. */
  static Measure percentile(double percentile) {
    Checks.requirePercentile(percentile);
    return new NamedMeasure(s -> s.valueAtPercentile(percentile), "p" + format(percentile));
  }

  /** The mean, NaN when empty. */
  static Measure mean() {
    return new NamedMeasure(WindowSnapshot::mean, "mean");
  }

  /** The largest sample, NaN when empty. */
  static Measure max() {
    return new NamedMeasure(WindowSnapshot::max, "max");
  }

  /** The number of samples (0 when empty: a count is data even when it is zero). */
  static Measure count() {
    return new NamedMeasure(s -> (double) s.count(), "count");
  }

  /**
   * The fraction (0 to 1) of samples strictly above {@code target}, NaN when empty.
   *
   * <p>{@link io.ringtail.WindowSnapshot#fractionAbove(long)}: exact up to the window's value
   * resolution (samples within one resolution step of {@code target}, 1 % at 2 significant digits,
   * may count on either side). A snapshot exact only at some percentiles, and an upper bound
   * elsewhere (the Redis window's), gives a conservative over-estimate as coarse as those
   * percentiles.
   */
  static Measure fractionAbove(long target) {
    Checks.requireNonNegative("target", target);
    return new NamedMeasure(s -> s.fractionAbove(target), "fractionAbove(" + target + ")");
  }

  private static String format(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
