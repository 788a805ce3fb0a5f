package io.ringtail.prometheus;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import io.prometheus.metrics.model.snapshots.Unit;
import io.ringtail.CumulativeHistogram;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ExponentialBuckets;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.WindowFailures;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Exports windows' distributions since creation as Prometheus histograms, which Prometheus can
 * {@code rate()} and add across processes: the fleet's percentiles from every pod's own window,
 * with no shared store.
 *
 * <pre>{@code
 * WindowConfig config = WindowConfig.builder().cumulativeHistogram(true).build();
 * RollingWindow checkout = RollingWindow.create(config);
 * WindowHistograms.builder().window("checkout", checkout).build().register(prometheusRegistry);
 * }</pre>
 *
 * <p>Then, over any range, for the whole fleet: {@code histogram_quantile(0.95, sum by (le)
 * (rate(ringtail_window_seconds_bucket{window="checkout"}[5m])))} from the classic buckets, or
 * {@code histogram_quantile(0.95, sum(rate(ringtail_window_seconds{window="checkout"}[5m])))} from
 * the native histogram.
 *
 * <h2>Series</h2>
 *
 * One histogram per window, named {@code ringtail_window_seconds} with label {@code window} (a
 * keyed collection: {@code ringtail_keyed_seconds} with {@code window} and {@code key}); another
 * {@link Builder#unit unit} replaces {@code seconds}. Each data point carries both forms, as the
 * Prometheus client's own histograms do; a server that scrapes the protobuf format with native
 * histograms enabled keeps the native form, any other the classic one:
 *
 * <ul>
 *   <li><b>classic</b>: the {@link Builder#classicBuckets bounds} chosen (by default SLO-friendly
 *       bounds from 5 ms to 10 s). Each window slot counts, whole, in the first bucket whose bound
 *       is at or above the slot's highest value: exact where the bounds fall on slot boundaries;
 *       otherwise a sample less than one slot (a relative 10<sup>-d</sup> at d significant digits,
 *       at most twice that) below a bound may count above it, never the reverse;
 *   <li><b>native</b>: base-2 exponential buckets at the schema {@link ExponentialBuckets#scaleFor}
 *       gives for the window's significant digits (6 at 2 digits: buckets 1.1 % wide), or the one
 *       {@link Builder#nativeSchema chosen}; a sample lands in its own bucket or, when its slot
 *       straddles a boundary, the next one up (see {@link ExponentialBuckets}).
 * </ul>
 *
 * <p>The sum is the window's exact total, in the unit. A window given an {@link ExemplarReservoir}
 * attaches its exemplars (trace and span id): the largest recent one in each classic bucket, which
 * the exposition places in that bucket. Counts start at the window's creation; a keyed collection's
 * key that expires and returns starts again from zero, which {@code rate()} reads as a counter
 * reset.
 *
 * <p>Names, labels, the key bound and its selection, and failure handling are those of {@link
 * WindowConventions}, shared with the Micrometer and OpenTelemetry bindings: a keyed collection
 * exports at most {@link Builder#maximumKeys maximumKeys} keys per scrape, those with the most
 * samples since creation; a window (or keyed collection) that throws when read is left out of that
 * scrape while the others are exported, and is logged as the conventions say.
 *
 * <p>Each scrape reads each window's {@link RollingWindow#cumulativeHistogram()} once. Thread-safe;
 * its configuration is immutable.
 */
public final class WindowHistograms implements MultiCollector {

  /** Default classic bounds, in seconds: from 5 ms to 10 s, at the usual SLO thresholds. */
  private static final double[] DEFAULT_SECONDS_BOUNDS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  private final Map<String, Source> windows;
  private final Map<String, Keyed> keyed;
  private final HistogramPoints points;
  private final String unit;
  private final String windowName;
  private final String keyedName;
  private final int maximumKeys;
  private final WindowFailures failures;

  private record Source(RollingWindow window, ExemplarReservoir exemplars) {}

  /**
   * A keyed collection, how its keys become labels (null: one {@code key} label), its own key bound
   * (null: the collector's), and the keys the last scrape exported (they stay on a tie at the
   * bound).
   */
  private static final class Keyed {
    final KeyedWindows windows;
    final Function<String, Map<String, String>> labelsOf;
    final Integer maximumKeys;
    volatile Set<String> exported = Set.of();

    Keyed(
        KeyedWindows windows, Function<String, Map<String, String>> labelsOf, Integer maximumKeys) {
      this.windows = windows;
      this.labelsOf = labelsOf;
      this.maximumKeys = maximumKeys;
    }
  }

  private WindowHistograms(Builder b, int maximumKeys) {
    this.windows = new LinkedHashMap<>(b.windows);
    this.keyed = new LinkedHashMap<>(b.keyed);
    this.points =
        new HistogramPoints(
            b.bounds == null ? defaultBounds(b.scale) : b.bounds.clone(),
            b.scale,
            b.nativeHistograms,
            b.nativeSchema);
    this.unit = b.unit;
    this.windowName = prometheusName(WindowConventions.WINDOW_PREFIX) + "_" + unit;
    this.keyedName = prometheusName(WindowConventions.KEYED_PREFIX) + "_" + unit;
    this.maximumKeys = maximumKeys;
    this.failures = b.conventions.failures();
  }

  private static String prometheusName(String dotted) {
    return dotted.replace('.', '_');
  }

  private static double[] defaultBounds(double scale) {
    return scale == 1e-9 ? DEFAULT_SECONDS_BOUNDS.clone() : new double[0];
  }

  /** A builder: add windows, then {@link Builder#build()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Registers this collector with {@code registry} (Spring Boot's {@code PrometheusRegistry} bean,
   * or Micrometer's {@code PrometheusMeterRegistry.getPrometheusRegistry()}), and returns it.
   *
   * @throws IllegalStateException if the registry already has a metric of these names
   */
  public WindowHistograms register(PrometheusRegistry registry) {
    Objects.requireNonNull(registry, "registry").register(this);
    return this;
  }

  @Override
  public List<String> getPrometheusNames() {
    List<String> names = new ArrayList<>(2);
    if (!windows.isEmpty()) {
      names.add(windowName);
    }
    if (!keyed.isEmpty()) {
      names.add(keyedName);
    }
    return names;
  }

  @Override
  public MetricSnapshots collect() {
    List<MetricSnapshot> metrics = new ArrayList<>(2);
    if (!windows.isEmpty()) {
      HistogramSnapshot.Builder metric = metric(windowName, "Samples recorded into each window");
      windows.forEach(
          (name, source) -> {
            RollingWindow window = source.window();
            Optional<CumulativeHistogram> h =
                failures.read(
                    name,
                    "window \"" + name + "\"",
                    window.timeSource(),
                    window::cumulativeHistogram);
            if (h != null && h.isPresent()) {
              metric.dataPoint(
                  points.point(
                      h.get(), Labels.of(WindowConventions.WINDOW_TAG, name), source.exemplars()));
            }
          });
      metrics.add(metric.build());
    }
    if (!keyed.isEmpty()) {
      HistogramSnapshot.Builder metric =
          metric(keyedName, "Samples recorded into each key's window");
      keyed.forEach(
          (name, source) -> {
            KeyedWindows windows = source.windows;
            Map<String, CumulativeHistogram> all =
                failures.read(
                    name,
                    "keyed windows \"" + name + "\"",
                    windows.timeSource(),
                    windows::cumulativeHistograms);
            if (all == null) {
              return;
            }
            Set<String> last = source.exported;
            Map<String, CumulativeHistogram> kept =
                WindowConventions.busiest(
                    all,
                    source.maximumKeys != null ? source.maximumKeys : maximumKeys,
                    h -> h.totals().count(),
                    last::contains);
            source.exported = Set.copyOf(kept.keySet());
            kept.forEach(
                (key, h) -> metric.dataPoint(points.point(h, labels(name, key, source), null)));
          });
      metrics.add(metric.build());
    }
    return new MetricSnapshots(metrics);
  }

  private static Labels labels(String name, String key, Keyed source) {
    if (source.labelsOf == null) {
      return Labels.of(WindowConventions.KEY_TAG, key, WindowConventions.WINDOW_TAG, name);
    }
    Map<String, String> byName = source.labelsOf.apply(key);
    List<String> names = new ArrayList<>(byName.size() + 1);
    List<String> values = new ArrayList<>(byName.size() + 1);
    byName.forEach(
        (n, v) -> {
          String label = PrometheusNaming.sanitizeLabelName(n);
          if (!label.equals(WindowConventions.WINDOW_TAG) && !names.contains(label)) {
            names.add(label);
            values.add(v);
          }
        });
    names.add(WindowConventions.WINDOW_TAG);
    values.add(name);
    return Labels.of(names, values);
  }

  private HistogramSnapshot.Builder metric(String name, String help) {
    HistogramSnapshot.Builder metric =
        HistogramSnapshot.builder().name(name).help(help + ", since its creation");
    return metric.unit(new Unit(unit));
  }

  /** Fluent builder; {@link #build()} validates. */
  public static final class Builder {
    private final Map<String, Source> windows = new LinkedHashMap<>();
    private final Map<String, Keyed> keyed = new LinkedHashMap<>();
    private double[] bounds;
    private Integer nativeSchema;
    private boolean nativeHistograms = true;
    private String unit = "seconds";
    private double scale = 1e-9;
    private WindowConventions conventions = WindowConventions.defaults();
    private Integer maximumKeys;

    private Builder() {}

    /**
     * The conventions this collector follows ({@link WindowConventions#defaults()} unless set): its
     * default maximum keys, and how often a failing window is logged.
     */
    public Builder conventions(WindowConventions conventions) {
      this.conventions = conventions;
      return this;
    }

    /**
     * The most keys of each keyed collection exported per scrape, 1 to {@value
     * WindowConventions#MAXIMUM_KEYS_LIMIT}; the conventions' (100 by default) unless set. Past it,
     * the keys with the most samples since their windows' creation ({@link
     * WindowConventions#busiest}). Checked by {@link #build()}.
     */
    public Builder maximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /**
     * Exports {@code window} with label {@code window="<name>"}. Its config must keep a cumulative
     * histogram ({@link io.ringtail.WindowConfig.Builder#cumulativeHistogram}).
     */
    public Builder window(String name, RollingWindow window) {
      return window(name, window, null);
    }

    /** Exports {@code window} with the exemplars {@code exemplars} keeps (null for none). */
    public Builder window(String name, RollingWindow window, ExemplarReservoir exemplars) {
      requireNewName(name);
      windows.put(name, new Source(Objects.requireNonNull(window, "window"), exemplars));
      return this;
    }

    /**
     * Exports every key of {@code windows} with labels {@code window="<name>"} and {@code
     * key="<key>"}. Its per-key config must keep a cumulative histogram.
     */
    public Builder keyed(String name, KeyedWindows windows) {
      requireNewName(name);
      keyed.put(name, new Keyed(Objects.requireNonNull(windows, "windows"), null, null));
      return this;
    }

    /**
     * Exports every key of {@code windows} with label {@code window="<name>"} and the labels {@code
     * keyLabels} maps the key to, in place of one {@code key} label (for keys that join several
     * values, like an endpoint's method, route and status). Label names are sanitized as Prometheus
     * requires; a {@code window} among them is left out. Its per-key config must keep a cumulative
     * histogram.
     */
    public Builder keyed(
        String name, KeyedWindows windows, Function<String, Map<String, String>> keyLabels) {
      return addKeyed(name, windows, keyLabels, null);
    }

    /**
     * As {@link #keyed(String, KeyedWindows, Function)}, exporting at most {@code maximumKeys} keys
     * of this collection (1 to {@value WindowConventions#MAXIMUM_KEYS_LIMIT}) in place of {@link
     * #maximumKeys}: for a collection whose other bindings publish a bound of its own.
     *
     * @throws IllegalArgumentException if maximumKeys breaks {@link WindowConventions}' bound
     */
    public Builder keyed(
        String name,
        KeyedWindows windows,
        Function<String, Map<String, String>> keyLabels,
        int maximumKeys) {
      WindowConventions.requireMaximumKeys(maximumKeys);
      return addKeyed(name, windows, keyLabels, maximumKeys);
    }

    private Builder addKeyed(
        String name,
        KeyedWindows windows,
        Function<String, Map<String, String>> keyLabels,
        Integer maximumKeys) {
      requireNewName(name);
      keyed.put(
          name,
          new Keyed(
              Objects.requireNonNull(windows, "windows"),
              Objects.requireNonNull(keyLabels, "keyLabels"),
              maximumKeys));
      return this;
    }

    /**
     * The classic buckets' upper bounds, in the exported unit, ascending (+Inf is added); none
     * leaves only +Inf. Default, for seconds: 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
     * 10.
     */
    public Builder classicBuckets(double... upperBounds) {
      Objects.requireNonNull(upperBounds, "upperBounds");
      for (int i = 0; i < upperBounds.length; i++) {
        if (!Double.isFinite(upperBounds[i]) || (i > 0 && upperBounds[i] <= upperBounds[i - 1])) {
          throw Checks.invalid(
              "upperBounds", "finite and ascending", Arrays.stream(upperBounds).boxed().toList());
        }
      }
      this.bounds = upperBounds.clone();
      return this;
    }

    /**
     * The native histograms' schema, -4 to 8, for every window; by default each window's from its
     * significant digits ({@link ExponentialBuckets#scaleFor}). Lower schemas have fewer, wider
     * buckets: each step down halves their number and doubles their width.
     */
    public Builder nativeSchema(int schema) {
      this.nativeSchema = Checks.requireBetween("nativeSchema", schema, -4, 8);
      return this;
    }

    /** Whether data points carry the native form as well as the classic one (default true). */
    public Builder nativeHistograms(boolean export) {
      this.nativeHistograms = export;
      return this;
    }

    /**
     * Values are not durations in nanoseconds: export them in {@code unit} (the metric's suffix,
     * such as {@code bytes}), each multiplied by {@code scale}. Classic bounds must then be given.
     */
    public Builder unit(String unit, double scale) {
      Objects.requireNonNull(unit, "unit");
      if (!unit.matches("[a-z][a-z0-9_]*")) {
        throw Checks.invalid("unit", "lower case letters, digits and underscores", unit);
      }
      if (!(scale > 0) || Double.isInfinite(scale)) {
        throw Checks.invalid("scale", "positive and finite", scale);
      }
      this.unit = unit;
      this.scale = scale;
      return this;
    }

    private void requireNewName(String name) {
      Checks.requireNonEmpty("name", name);
      if (windows.containsKey(name) || keyed.containsKey(name)) {
        throw Checks.invalid("name", "unique among the windows added", name);
      }
    }

    /**
     * The collector.
     *
     * @throws IllegalArgumentException if no window was added, one keeps no cumulative histogram,
     *     or maximum keys break {@link WindowConventions}' bound
     */
    public WindowHistograms build() {
      Objects.requireNonNull(conventions, "conventions");
      int keys =
          WindowConventions.requireMaximumKeys(
              maximumKeys == null ? conventions.maximumKeys() : maximumKeys);
      if (windows.isEmpty() && keyed.isEmpty()) {
        throw Checks.invalidConfiguration("add at least one window to export");
      }
      windows.forEach(
          (name, source) -> {
            if (source.window().cumulativeHistogram().isEmpty()) {
              throw noHistogram(name);
            }
          });
      keyed.forEach(
          (name, source) -> {
            if (!source.windows.windowConfig().cumulativeHistogram()) {
              throw noHistogram(name);
            }
          });
      return new WindowHistograms(this, keys);
    }

    private static IllegalArgumentException noHistogram(String name) {
      return Checks.invalidConfiguration(
          "window \""
              + name
              + "\" keeps no cumulative histogram: create it from a WindowConfig built with"
              + " cumulativeHistogram(true)");
    }
  }
}
