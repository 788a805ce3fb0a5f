package io.ringtail;

import io.ringtail.internal.Checks;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * What every binding of windows to a metrics system (Micrometer, OpenTelemetry, Prometheus, the
 * Spring Boot starter) agrees on, so a dashboard, an alert or a configuration survives a switch of
 * binding:
 *
 * <ul>
 *   <li><b>names</b>: metric prefixes {@value #WINDOW_PREFIX} (single windows) and {@value
 *       #KEYED_PREFIX} (keyed collections); labels {@value #WINDOW_TAG} (the window's name),
 *       {@value #KEY_TAG} (a keyed collection's key) and {@value #PERCENTILE_TAG} (a percentile, as
 *       the fraction {@link #percentileLabel formatted} the way Micrometer formats its own);
 *   <li><b>percentiles are fractions</b>, 0 to 1 ({@code 0.95} for P95) as in Micrometer's {@code
 *       publishPercentiles(0.95)}; at most {@value #MAX_PERCENTILES} distinct ones ({@link
 *       #requirePercentiles});
 *   <li><b>key bound</b>: a keyed collection reports at most {@code maximumKeys} keys, 1 to {@value
 *       #MAXIMUM_KEYS_LIMIT} ({@link #requireMaximumKeys}); past it, the keys with the most samples
 *       ({@link #busiest});
 *   <li><b>failure isolation</b>: a window (or keyed collection) that throws when read is left out
 *       of that scrape (a Micrometer gauge, which cannot be left out, reads NaN) and the others are
 *       reported as usual. Its first failure is logged at WARNING with the stack trace, naming the
 *       window; later failures at DEBUG, and again at WARNING at most once per {@link
 *       #failureLogInterval()} while it keeps failing; its recovery once at INFO. Logged to the
 *       {@code System.Logger} named after this class.
 * </ul>
 *
 * <p>An instance also carries the defaults a binding starts from: {@link #percentiles()}, {@link
 * #maximumKeys()} and {@link #failureLogInterval()}. Pass {@link #defaults()} or your own to a
 * binding's builder ({@code conventions(...)}); per-binding setters still override.
 *
 * <p>Immutable and thread-safe.
 */
public final class WindowConventions {
  /** Prefix of single windows' metrics: {@value}. */
  public static final String WINDOW_PREFIX = "ringtail.window";

  /** Prefix of keyed collections' metrics (their series carry {@link #KEY_TAG}): {@value}. */
  public static final String KEYED_PREFIX = "ringtail.keyed";

  /** The label carrying the window's (or keyed collection's) name: {@value}. */
  public static final String WINDOW_TAG = "window";

  /** The label carrying a keyed collection's key: {@value}. */
  public static final String KEY_TAG = "key";

  /** The label carrying a percentile, as a fraction ({@code phi="0.95"}): {@value}. */
  public static final String PERCENTILE_TAG = "phi";

  /** The most distinct percentiles one binding publishes: {@value}. */
  public static final int MAX_PERCENTILES = 32;

  /** The highest {@code maximumKeys} any binding accepts: {@value}. */
  public static final int MAXIMUM_KEYS_LIMIT = 100_000;

  private static final WindowConventions DEFAULTS = builder().build();

  private final double[] percentiles;
  private final int maximumKeys;
  private final Duration failureLogInterval;

  private WindowConventions(double[] percentiles, int maximumKeys, Duration failureLogInterval) {
    this.percentiles = percentiles;
    this.maximumKeys = maximumKeys;
    this.failureLogInterval = failureLogInterval;
  }

  /** Percentiles 0.5, 0.95 and 0.99; 100 keys; failures logged at WARNING at most once a minute. */
  public static WindowConventions defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this instance's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.percentiles = percentiles.clone();
    b.maximumKeys = maximumKeys;
    b.failureLogInterval = failureLogInterval;
    return b;
  }

  /** The percentiles a binding publishes unless told otherwise: fractions, ascending, distinct. */
  public double[] percentiles() {
    return percentiles.clone();
  }

  /** The most keys of one keyed collection a binding reports unless told otherwise. */
  public int maximumKeys() {
    return maximumKeys;
  }

  /** The shortest time between two WARNING logs of one window that keeps failing. */
  public Duration failureLogInterval() {
    return failureLogInterval;
  }

  /**
   * A new log of window failures under these conventions, for one binding: it leaves a window that
   * throws out of a scrape and logs it as {@link #failureLogInterval()} says.
   */
  public WindowFailures failures() {
    return new WindowFailures(this);
  }

  /**
   * The percentile rule every binding applies: {@code fractions}, each from 0 to 1, sorted and
   * without duplicates.
   *
   * @throws NullPointerException if {@code fractions} is null
   * @throws IllegalArgumentException if one is outside 0..1 (or NaN), or there are more than
   *     {@value #MAX_PERCENTILES} distinct ones
   */
  public static double[] requirePercentiles(double... fractions) {
    Checks.requireNonNull("percentiles", fractions);
    TreeSet<Double> distinct = new TreeSet<>();
    for (double p : fractions) {
      if (!(p >= 0.0 && p <= 1.0)) {
        String hint =
            p > 1.0 && p <= 100.0
                ? "fractions between 0 and 1 ("
                    + percentileLabel(p / 100)
                    + " for P"
                    + plain(p)
                    + ")"
                : "fractions between 0 and 1 (0.95 for P95)";
        throw Checks.invalid("percentiles", hint, p);
      }
      distinct.add(p == 0.0 ? 0.0 : p); // -0.0 and 0.0 are one percentile
    }
    if (distinct.size() > MAX_PERCENTILES) {
      throw Checks.invalid(
          "percentiles", "at most " + MAX_PERCENTILES + " distinct values", distinct.size());
    }
    return distinct.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static String plain(double p) {
    return BigDecimal.valueOf(p).stripTrailingZeros().toPlainString();
  }

  /**
   * The bound rule every binding applies to {@code maximumKeys}: 1 to {@value #MAXIMUM_KEYS_LIMIT}.
   *
   * @throws IllegalArgumentException if outside it
   */
  public static int requireMaximumKeys(int maximumKeys) {
    return Checks.requireBetween("maximumKeys", maximumKeys, 1, MAXIMUM_KEYS_LIMIT);
  }

  /**
   * A fraction as the {@value #PERCENTILE_TAG} label's value, as Micrometer writes its own: at most
   * six decimals, no trailing zeros ({@code 0.95} gives {@code "0.95"}, {@code 1} gives {@code
   * "1"}).
   */
  public static String percentileLabel(double fraction) {
    BigDecimal d = BigDecimal.valueOf(fraction).setScale(6, RoundingMode.HALF_EVEN);
    return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
  }

  /**
   * A fraction as the percentile, 0 to 100, {@link WindowSnapshot#valueAtPercentile} takes; exact
   * in decimal ({@code 0.29} gives 29, not 28.999...).
   */
  public static double percentileOf(double fraction) {
    return BigDecimal.valueOf(fraction).movePointRight(2).doubleValue();
  }

  /**
   * The top-N selection every binding applies to a keyed collection past its bound: the {@code
   * maximumKeys} entries with the most samples; on a tie an {@code incumbent} (a key already
   * reported) is kept, so equal keys do not trade places at every scrape. Returns {@code
   * candidates} itself when it holds no more than {@code maximumKeys}. Costs one pass and a heap of
   * {@code maximumKeys}.
   */
  public static <K, V> Map<K, V> busiest(
      Map<K, V> candidates,
      int maximumKeys,
      ToLongFunction<? super V> samples,
      Predicate<? super K> incumbent) {
    Checks.requireNonNull("candidates", candidates);
    requireMaximumKeys(maximumKeys);
    if (candidates.size() <= maximumKeys) {
      return candidates;
    }
    record Ranked<K, V>(K key, V value, long samples, boolean incumbent) {}
    Comparator<Ranked<K, V>> weakestFirst =
        Comparator.<Ranked<K, V>>comparingLong(Ranked::samples).thenComparing(Ranked::incumbent);
    PriorityQueue<Ranked<K, V>> top = new PriorityQueue<>(maximumKeys + 1, weakestFirst);
    for (Map.Entry<K, V> e : candidates.entrySet()) {
      V v = e.getValue();
      top.add(new Ranked<>(e.getKey(), v, samples.applyAsLong(v), incumbent.test(e.getKey())));
      if (top.size() > maximumKeys) {
        top.poll();
      }
    }
    Map<K, V> kept = new HashMap<>(maximumKeys * 2);
    for (Ranked<K, V> r : top) {
      kept.put(r.key(), r.value());
    }
    return kept;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WindowConventions c
        && Arrays.equals(percentiles, c.percentiles)
        && maximumKeys == c.maximumKeys
        && failureLogInterval.equals(c.failureLogInterval);
  }

  @Override
  public int hashCode() {
    return (Arrays.hashCode(percentiles) * 31 + maximumKeys) * 31 + failureLogInterval.hashCode();
  }

  @Override
  public String toString() {
    return "WindowConventions[percentiles="
        + Arrays.toString(percentiles)
        + ", maximumKeys="
        + maximumKeys
        + ", failureLogInterval="
        + failureLogInterval
        + "]";
  }

  /** Fluent builder of {@link WindowConventions}; setters store, {@link #build} checks. */
  public static final class Builder {
    private double[] percentiles = {0.5, 0.95, 0.99};
    private int maximumKeys = 100;
    private Duration failureLogInterval = Duration.ofMinutes(1);

    private Builder() {}

    /** The default percentiles, as fractions ({@code 0.95} for P95); 0.5, 0.95, 0.99 unless set. */
    public Builder percentiles(double... fractions) {
      this.percentiles = fractions == null ? null : fractions.clone();
      return this;
    }

    /** The default most keys per keyed collection, 1 to {@value #MAXIMUM_KEYS_LIMIT}; 100. */
    public Builder maximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /**
     * The shortest time between two WARNING logs of one failing window, positive; 1 minute unless
     * set. Measured on the window's own time source.
     */
    public Builder failureLogInterval(Duration interval) {
      this.failureLogInterval = interval;
      return this;
    }

    /**
     * The conventions.
     *
     * @throws IllegalArgumentException if a value breaks its rule
     */
    public WindowConventions build() {
      double[] ps = requirePercentiles(percentiles);
      requireMaximumKeys(maximumKeys);
      Checks.requirePositiveNanos("failureLogInterval", failureLogInterval);
      return new WindowConventions(ps, maximumKeys, failureLogInterval);
    }
  }
}
