package io.ringtail.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.util.DoubleFormat;
import io.ringtail.RollingWindow;
import io.ringtail.WindowSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * The immutable description of the meters one window gets: names, tags, units and percentiles,
 * shared by {@link WindowMetrics} and {@link KeyedWindowMetrics}. Thread-safe.
 */
final class MeterSpec {
  static final String DEFAULT_PREFIX = "ringtail.window";
  static final String DEFAULT_KEYED_PREFIX = "ringtail.keyed";
  static final double[] DEFAULT_PERCENTILES = {0.5, 0.95, 0.99};
  static final long DEFAULT_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final int MAX_PERCENTILES = 32;
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*");

  final String prefix;
  final String name;
  final Tags tags;
  final double[] percentiles;
  final TimeUnit timeUnit;
  final String baseUnit;
  final long maxAgeNanos;

  MeterSpec(String prefix, String name, Tags tags, double[] percentiles, TimeUnit timeUnit,
      String baseUnit, long maxAgeNanos) {
    this.prefix = prefix;
    this.name = name;
    this.tags = tags;
    this.percentiles = percentiles;
    this.timeUnit = timeUnit;
    this.baseUnit = baseUnit;
    this.maxAgeNanos = maxAgeNanos;
  }

  static String requirePrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (!NAME.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "prefix must be lowercase dot-separated words (like ringtail.window), but was " + prefix);
    }
    return prefix;
  }

  static String requireName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank, but was \"" + name + "\"");
    }
    return name;
  }

  static double[] requirePercentiles(double... percentiles) {
    Objects.requireNonNull(percentiles, "percentiles");
    TreeSet<Double> distinct = new TreeSet<>();
    for (double p : percentiles) {
      if (!(p >= 0.0 && p <= 1.0)) {
        throw new IllegalArgumentException(
            "percentiles must be between 0 and 1 (0.95 for P95), but was " + p);
      }
      distinct.add(p);
    }
    if (distinct.size() > MAX_PERCENTILES) {
      throw new IllegalArgumentException(
          "percentiles must number at most " + MAX_PERCENTILES + ", but was " + distinct.size());
    }
    return distinct.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** How many gauges one window gets. */
  int gaugeCount() {
    return 6 + percentiles.length;
  }

  /** Registers the gauges of one window, all reading one {@link ScrapeSnapshot}. */
  List<Meter> register(MeterRegistry registry, RollingWindow window, Iterable<Tag> extraTags) {
    Tags all = Tags.of("window", name).and(tags).and(extraTags);
    ScrapeSnapshot scrape = new ScrapeSnapshot(window, gaugeCount(), maxAgeNanos);
    List<Meter> meters = new ArrayList<>(gaugeCount());
    meters.add(plain(registry, scrape, 0, "samples", all, null,
        "Samples recorded in the rolling window", WindowSnapshot::count));
    meters.add(plain(registry, scrape, 1, "rejected", all, null,
        "Samples rejected as out of range in the rolling window", WindowSnapshot::rejected));
    meters.add(value(registry, scrape, 2, "sum", all,
        "Sum of the samples in the rolling window", WindowSnapshot::sum));
    meters.add(value(registry, scrape, 3, "mean", all,
        "Mean of the samples in the rolling window; NaN when empty", WindowSnapshot::mean));
    meters.add(value(registry, scrape, 4, "min", all,
        "Smallest sample in the rolling window; NaN when empty", WindowSnapshot::min));
    meters.add(value(registry, scrape, 5, "max", all,
        "Largest sample in the rolling window; NaN when empty", WindowSnapshot::max));
    for (int i = 0; i < percentiles.length; i++) {
      double phi = percentiles[i];
      double percentile = phi * 100.0;
      meters.add(value(registry, scrape, 6 + i, "percentile",
          all.and("phi", DoubleFormat.decimalOrNan(phi)),
          "Nearest-rank percentile of the samples in the rolling window; NaN when empty",
          s -> s.valueAtPercentile(percentile)));
    }
    return meters;
  }

  private Meter value(MeterRegistry registry, ScrapeSnapshot scrape, int index, String suffix,
      Tags tags, String description, ToDoubleFunction<WindowSnapshot> statistic) {
    if (timeUnit == null) {
      return plain(registry, scrape, index, suffix, tags, baseUnit, description, statistic);
    }
    return TimeGauge.builder(prefix + "." + suffix, scrape, timeUnit,
            s -> s.read(index, statistic))
        .tags(tags)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  private Meter plain(MeterRegistry registry, ScrapeSnapshot scrape, int index, String suffix,
      Tags tags, String unit, String description, ToDoubleFunction<WindowSnapshot> statistic) {
    return Gauge.builder(prefix + "." + suffix, scrape,
            s -> s.read(index, statistic))
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  @Override
  public String toString() {
    return "MeterSpec[prefix=" + prefix + ", name=" + name + ", tags=" + tags
        + ", percentiles=" + Arrays.toString(percentiles) + ", timeUnit=" + timeUnit
        + ", baseUnit=" + baseUnit + "]";
  }
}
