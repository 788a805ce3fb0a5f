package io.ringtail.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.WindowFailures;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * The immutable description of the meters one window gets: names, tags, units and percentiles,
 * shared by {@link WindowMetrics} and {@link KeyedWindowMetrics}. Thread-safe.
 */
final class MeterSpec {
  static final long DEFAULT_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*");

  final String prefix;
  final String name;
  final Tags tags;
  final double[] percentiles;
  final TimeUnit timeUnit;
  final String baseUnit;
  final long maxAgeNanos;

  /** The snapshot failures of every window this spec registers (a keyed binding's keys). */
  final WindowFailures failures;

  final boolean statistics;
  final boolean totals;

  /**
   * Each registered window's scrape snapshot, kept as long as its first meter lives: counters hold
   * their object weakly, and a binding of totals alone has no gauge to hold it strongly.
   */
  private static final java.util.Set<Kept> SCRAPES =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static final java.lang.ref.ReferenceQueue<Meter> GONE =
      new java.lang.ref.ReferenceQueue<>();

  /**
   * A scrape snapshot kept while its meter lives, by the meter's identity: meters are equal by id,
   * and the same id registered in two registries (or again after a removal) must not let one
   * binding's snapshot go.
   */
  private static final class Kept extends java.lang.ref.WeakReference<Meter> {
    final ScrapeSnapshot<?> scrape;

    Kept(Meter meter, ScrapeSnapshot<?> scrape) {
      super(meter, GONE);
      this.scrape = scrape;
    }
  }

  private static void keep(Meter meter, ScrapeSnapshot<?> scrape) {
    for (java.lang.ref.Reference<?> r = GONE.poll(); r != null; r = GONE.poll()) {
      SCRAPES.remove(r);
    }
    SCRAPES.add(new Kept(meter, scrape));
  }

  MeterSpec(
      String prefix,
      String name,
      Tags tags,
      double[] percentiles,
      TimeUnit timeUnit,
      String baseUnit,
      long maxAgeNanos,
      WindowConventions conventions,
      java.util.Set<WindowMeters> meters) {
    this.failures = conventions.failures();
    this.statistics = meters.contains(WindowMeters.STATISTICS);
    this.totals = meters.contains(WindowMeters.TOTALS);
    this.prefix = prefix;
    this.name = name;
    this.tags = tags;
    this.percentiles = percentiles;
    this.timeUnit = timeUnit;
    this.baseUnit = baseUnit;
    this.maxAgeNanos = maxAgeNanos;
  }

  static String requirePrefix(String prefix) {
    Checks.requireNonNull("prefix", prefix);
    if (!NAME.matcher(prefix).matches()) {
      throw Checks.invalid(
          "prefix", "lowercase dot-separated words (like ringtail.window)", prefix);
    }
    return prefix;
  }

  static String requireName(String name) {
    return Checks.requireNonBlank("name", name);
  }

  /** How many meters one window gets: gauges and the three counters, as configured. */
  int meterCount() {
    return (totals ? COUNTERS : 0) + (statistics ? 6 + percentiles.length : 0);
  }

  static final int COUNTERS = 3;

  /** The window (and key) as a log names it: {@code window "checkout" [uri=/orders/{id}]}. */
  private String describe(Iterable<Tag> extraTags) {
    StringBuilder s = new StringBuilder("window \"").append(name).append('"');
    String sep = " [";
    for (Tag t : extraTags) {
      s.append(sep).append(t.getKey()).append('=').append(t.getValue());
      sep = ", ";
    }
    return sep.equals(", ") ? s.append(']').toString() : s.toString();
  }

  /** Registers the meters of one window, all reading one {@link ScrapeSnapshot}. */
  List<Meter> register(MeterRegistry registry, RollingWindow window, Iterable<Tag> extraTags) {
    Tags all = Tags.of(WindowConventions.WINDOW_TAG, name).and(tags).and(extraTags);
    ScrapeSnapshot<WindowSnapshot> scrape =
        ScrapeSnapshot.of(window, meterCount(), maxAgeNanos, name, describe(extraTags), failures);
    List<Meter> meters = new ArrayList<>(meterCount());
    if (statistics) {
      meters.add(
          plain(
              registry,
              scrape,
              0,
              "samples",
              all,
              null,
              "Samples recorded in the rolling window",
              WindowSnapshot::count));
      meters.add(
          plain(
              registry,
              scrape,
              1,
              "rejected",
              all,
              null,
              "Samples rejected as out of range in the rolling window",
              WindowSnapshot::rejected));
      meters.add(
          value(
              registry,
              scrape,
              2,
              "sum",
              all,
              "Sum of the samples in the rolling window",
              WindowSnapshot::sum));
      meters.add(
          value(
              registry,
              scrape,
              3,
              "mean",
              all,
              "Mean of the samples in the rolling window; NaN when empty",
              WindowSnapshot::mean));
      meters.add(
          value(
              registry,
              scrape,
              4,
              "min",
              all,
              "Smallest sample in the rolling window; NaN when empty",
              WindowSnapshot::min));
      meters.add(
          value(
              registry,
              scrape,
              5,
              "max",
              all,
              "Largest sample in the rolling window; NaN when empty",
              WindowSnapshot::max));
      for (int i = 0; i < percentiles.length; i++) {
        double phi = percentiles[i];
        double percentile = WindowConventions.percentileOf(phi);
        meters.add(
            value(
                registry,
                scrape,
                6 + i,
                "percentile",
                all.and(WindowConventions.PERCENTILE_TAG, WindowConventions.percentileLabel(phi)),
                "Nearest-rank percentile of the samples in the rolling window; NaN when empty",
                s -> s.valueAtPercentile(percentile)));
      }
    }
    int c = statistics ? 6 + percentiles.length : 0;
    if (totals) {
      meters.add(
          counter(
              registry,
              scrape,
              c,
              "recorded",
              all,
              null,
              "Samples recorded since the window was created",
              t -> t.count()));
      meters.add(
          counter(
              registry,
              scrape,
              c + 1,
              "rejections",
              all,
              null,
              "Samples rejected as out of range since the window was created",
              t -> t.rejected()));
      if (timeUnit == null) {
        meters.add(
            counter(
                registry,
                scrape,
                c + 2,
                "recorded.sum",
                all,
                baseUnit,
                "Sum of the samples recorded since the window was created",
                WindowTotals::sum));
      } else {
        double toSeconds = timeUnit.toNanos(1) / 1e9;
        meters.add(
            counter(
                registry,
                scrape,
                c + 2,
                "recorded.sum",
                all,
                "seconds",
                "Sum of the samples recorded since the window was created",
                t -> t.sum() * toSeconds));
      }
    }
    keep(meters.get(0), scrape);
    return meters;
  }

  /**
   * A counter of the window's totals since creation; NaN when the window keeps none. Function
   * counters hold their object weakly: the scrape snapshot stays reachable through the window's
   * gauges, which hold it strongly.
   */
  private Meter counter(
      MeterRegistry registry,
      ScrapeSnapshot<WindowSnapshot> scrape,
      int index,
      String suffix,
      Tags tags,
      String unit,
      String description,
      ToDoubleFunction<WindowTotals> total) {
    ToDoubleFunction<WindowSnapshot> statistic =
        s -> s.totals().map(total::applyAsDouble).orElse(Double.NaN);
    return FunctionCounter.builder(prefix + "." + suffix, scrape, sc -> sc.read(index, statistic))
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .register(registry);
  }

  private Meter value(
      MeterRegistry registry,
      ScrapeSnapshot<WindowSnapshot> scrape,
      int index,
      String suffix,
      Tags tags,
      String description,
      ToDoubleFunction<WindowSnapshot> statistic) {
    if (timeUnit == null) {
      return plain(registry, scrape, index, suffix, tags, baseUnit, description, statistic);
    }
    return TimeGauge.builder(prefix + "." + suffix, scrape, timeUnit, s -> s.read(index, statistic))
        .tags(tags)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  private Meter plain(
      MeterRegistry registry,
      ScrapeSnapshot<WindowSnapshot> scrape,
      int index,
      String suffix,
      Tags tags,
      String unit,
      String description,
      ToDoubleFunction<WindowSnapshot> statistic) {
    return Gauge.builder(prefix + "." + suffix, scrape, s -> s.read(index, statistic))
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  @Override
  public String toString() {
    return "MeterSpec[prefix="
        + prefix
        + ", name="
        + name
        + ", tags="
        + tags
        + ", percentiles="
        + Arrays.toString(percentiles)
        + ", timeUnit="
        + timeUnit
        + ", baseUnit="
        + baseUnit
        + "]";
  }
}
