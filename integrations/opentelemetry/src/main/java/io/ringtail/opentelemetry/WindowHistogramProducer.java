package io.ringtail.opentelemetry;

import static io.ringtail.opentelemetry.WindowTelemetry.WINDOW_KEY;
import static io.ringtail.opentelemetry.WindowTelemetry.WINDOW_NAME;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.SdkMeterProviderBuilder;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramData;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricProducer;
import io.opentelemetry.sdk.resources.Resource;
import io.ringtail.CumulativeHistogram;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ExponentialBuckets;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.WindowFailures;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Exports each window's distribution since its creation ({@link
 * RollingWindow#cumulativeHistogram()}) as an OpenTelemetry exponential histogram of cumulative
 * temporality, the aggregatable form a backend can rate and add across processes (a Prometheus
 * native histogram through OpenTelemetry's Prometheus exporter).
 *
 * <p>It is an SDK {@link MetricProducer}: register it beside the SDK's own instruments with {@link
 * SdkMeterProviderBuilder#registerMetricProducer}, and every reader's collection reads each window
 * once. This class alone needs {@code io.opentelemetry:opentelemetry-sdk-metrics}, an optional
 * dependency of this module: an application using it declares the SDK (it has it anyway, to
 * register a producer), while users of {@link WindowTelemetry} need the API only.
 *
 * <h2>Points</h2>
 *
 * Metric {@code ringtail.window.distribution}, one point per window with attribute {@code window}
 * (its name); metric {@code ringtail.keyed.distribution}, one point per key a keyed collection
 * holds at the collection, with attributes {@code window} and {@code key}; both with the user's
 * attributes. Each point has the window's {@link CumulativeHistogram#exponentialBuckets exponential
 * buckets} (positive buckets and zero count; no negative buckets: samples are never negative), its
 * count and sum from the {@link CumulativeHistogram#totals() totals}, and no min or max (the
 * window's are rolling, not since creation). Values are in seconds ({@code s}) for duration windows
 * (the default, recorded in nanoseconds), else in the unit given.
 *
 * <p>The scale is {@link ExponentialBuckets#scaleFor(int) scaleFor} the window's significant digits
 * unless set: buckets no narrower than the window's slots. Each slot counts, whole, in the bucket
 * of its highest value, so a sample lands in its own bucket or the next one up: at most one slot
 * (about a relative 10^-digits) above its own value.
 *
 * <p>Start time: the window's creation (the start of its first bucket) on the wall clock, found by
 * subtracting the window's age from the clock once, when the producer is built (for a key, when a
 * collection first sees its window), so it stays the same across collections. A key that expires
 * and comes back gets a new window, hence a new start time, with its counts from zero. A window
 * that fails to give its histogram reports nothing for that collection, while the others report as
 * usual, and the failure is logged, as {@link WindowConventions} says for every binding. A keyed
 * collection reports at most {@link Builder#maximumKeys maximumKeys} keys, those with the most
 * samples since their windows' creation ({@link WindowConventions#busiest}).
 *
 * <p>Immutable and thread-safe; {@link #produce} may run for several readers at once.
 */
public final class WindowHistogramProducer implements MetricProducer {
  /** The metric of single windows: {@value}. */
  public static final String WINDOW_METRIC = WindowTelemetry.WINDOW_PREFIX + ".distribution";

  /** The metric of keyed collections (their points carry the key attribute): {@value}. */
  public static final String KEYED_METRIC = WindowTelemetry.KEYED_PREFIX + ".distribution";

  /** The lowest and highest scales OpenTelemetry's exponential histogram allows. */
  static final int MIN_SCALE = -10;

  static final int MAX_SCALE = 20;

  /** The scope of the points: the meter name the {@link WindowTelemetry} examples use. */
  static final InstrumentationScopeInfo SCOPE = InstrumentationScopeInfo.create("io.ringtail");

  private static final String WINDOW_DESCRIPTION =
      "Distribution of the samples recorded since the window was created";
  private static final String KEYED_DESCRIPTION =
      "Distribution of the samples recorded since each key's window was created";

  private final List<WindowSource> windows;
  private final List<KeyedSource> keyed;
  private final String unit;
  private final ExponentialPoints points;
  private final Clock clock;
  private final WindowFailures failures;
  private final int maximumKeys;

  private WindowHistogramProducer(
      List<WindowSource> windows,
      List<KeyedSource> keyed,
      String unit,
      double unitScale,
      Clock clock,
      WindowConventions conventions,
      int maximumKeys) {
    this.failures = conventions.failures();
    this.maximumKeys = maximumKeys;
    this.windows = List.copyOf(windows);
    this.keyed = List.copyOf(keyed);
    this.unit = unit;
    this.points = new ExponentialPoints(unitScale);
    this.clock = clock;
  }

  /** A builder with no windows yet. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Collection<MetricData> produce(Resource resource) {
    Objects.requireNonNull(resource, "resource");
    long now = clock.now();
    List<MetricData> out = new ArrayList<>(2);
    if (!windows.isEmpty()) {
      List<ExponentialHistogramPointData> points = new ArrayList<>(windows.size());
      for (WindowSource w : windows) {
        CumulativeHistogram h = histogramOf(w);
        if (h != null) {
          points.add(
              this.points.point(h, w.scale, w.startEpochNanos, now, w.attributes, w.exemplars));
        }
      }
      addMetric(out, resource, WINDOW_METRIC, WINDOW_DESCRIPTION, points);
    }
    if (!keyed.isEmpty()) {
      List<ExponentialHistogramPointData> points = new ArrayList<>();
      for (KeyedSource k : keyed) {
        k.collect(this, now, points);
      }
      addMetric(out, resource, KEYED_METRIC, KEYED_DESCRIPTION, points);
    }
    return out;
  }

  private void addMetric(
      List<MetricData> out,
      Resource resource,
      String name,
      String description,
      List<ExponentialHistogramPointData> points) {
    if (!points.isEmpty()) {
      out.add(
          new ExponentialHistogramMetric(
              resource,
              SCOPE,
              name,
              description,
              unit,
              ExponentialHistogramData.create(AggregationTemporality.CUMULATIVE, points)));
    }
  }

  private CumulativeHistogram histogramOf(WindowSource w) {
    String name = w.attributes.get(WINDOW_NAME);
    Optional<CumulativeHistogram> h =
        failures.read(
            name, "window \"" + name + "\"", w.window.timeSource(), w.window::cumulativeHistogram);
    return h == null ? null : h.orElse(null);
  }

  /**
   * The wall-clock time of a window's creation: {@code now} less the time the window has lived as
   * of {@code h}, in its own time base.
   */
  private static long startEpochNanos(CumulativeHistogram h, long now) {
    return now - Math.max(0L, h.endNanos() - h.startNanos());
  }

  @Override
  public String toString() {
    List<String> names = new ArrayList<>();
    windows.forEach(w -> names.add(w.attributes.get(WINDOW_NAME)));
    keyed.forEach(k -> names.add(k.attributes.get(WINDOW_NAME) + " (keyed)"));
    return "WindowHistogramProducer[" + names + ", unit=" + unit + "]";
  }

  /** A single window, its point's attributes, scale and start time. */
  private static final class WindowSource {
    final RollingWindow window;
    final Attributes attributes;
    final int scale;
    final long startEpochNanos;
    final ExemplarReservoir exemplars;

    WindowSource(
        RollingWindow window,
        Attributes attributes,
        int scale,
        long startEpochNanos,
        ExemplarReservoir exemplars) {
      this.window = window;
      this.attributes = attributes;
      this.scale = scale;
      this.startEpochNanos = startEpochNanos;
      this.exemplars = exemplars;
    }
  }

  /** A keyed collection and the start time of each key's window it has seen. */
  private static final class KeyedSource {
    final KeyedWindows windows;
    final Attributes attributes;
    final int scale;

    /** Per key: the window's start in its time base, and that start on the wall clock. */
    final Map<String, long[]> starts = new HashMap<>();

    KeyedSource(KeyedWindows windows, Attributes attributes, int scale) {
      this.windows = windows;
      this.attributes = attributes;
      this.scale = scale;
    }

    /** Synchronized: two readers' collections must not drop each other's start times. */
    synchronized void collect(
        WindowHistogramProducer producer, long now, List<ExponentialHistogramPointData> points) {
      String name = attributes.get(WINDOW_NAME);
      Map<String, CumulativeHistogram> all =
          producer.failures.read(
              name,
              "keyed windows \"" + name + "\"",
              windows.timeSource(),
              windows::cumulativeHistograms);
      if (all == null) {
        return;
      }
      all =
          WindowConventions.busiest(
              all, producer.maximumKeys, h -> h.totals().count(), starts::containsKey);
      for (Map.Entry<String, CumulativeHistogram> e : all.entrySet()) {
        CumulativeHistogram h = e.getValue();
        long[] start =
            starts.compute(
                e.getKey(),
                (key, s) ->
                    s != null && s[0] == h.startNanos()
                        ? s
                        : new long[] {h.startNanos(), startEpochNanos(h, now)});
        Attributes at = attributes.toBuilder().put(WINDOW_KEY, e.getKey()).build();
        points.add(producer.points.point(h, scale, start[1], now, at, null));
      }
      starts.keySet().retainAll(all.keySet());
    }
  }

  /** Fluent builder of a {@link WindowHistogramProducer}; reusable, not thread-safe. */
  public static final class Builder {
    private final Map<String, RollingWindow> windows = new LinkedHashMap<>();
    private final Map<String, ExemplarReservoir> exemplars = new HashMap<>();
    private final Map<String, KeyedWindows> keyed = new LinkedHashMap<>();
    private Attributes attributes = Attributes.empty();
    private Integer scale;
    private ValueUnit valueUnit = ValueUnit.NANOSECONDS;
    private Clock clock = Clock.getDefault();
    private WindowConventions conventions = WindowConventions.defaults();
    private Integer maximumKeys;

    private Builder() {}

    /**
     * The conventions this producer follows ({@link WindowConventions#defaults()} unless set): its
     * default maximum keys, and how often a failing window is logged.
     */
    public Builder conventions(WindowConventions conventions) {
      this.conventions = conventions;
      return this;
    }

    /**
     * The most keys of each keyed collection reported per collection, 1 to {@value
     * WindowConventions#MAXIMUM_KEYS_LIMIT}; the conventions' (100 by default) unless set. Past it,
     * the keys with the most samples since their windows' creation. Checked by {@link #build()}.
     */
    public Builder maximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /**
     * Exports {@code window} under {@code name} (attribute {@code window}). The window must keep a
     * cumulative histogram ({@link WindowConfig.Builder#cumulativeHistogram(boolean)}).
     *
     * @throws NullPointerException if name or window is null
     * @throws IllegalArgumentException if name is blank or already names a window
     */
    public Builder window(String name, RollingWindow window) {
      requireName(name, windows.keySet(), "windows");
      windows.put(name, Objects.requireNonNull(window, "window"));
      return this;
    }

    /**
     * Exports {@code window} with the exemplars {@code exemplars} keeps (their trace and span, see
     * {@link SpanExemplars} for the current span's), on the window's point.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if name is blank or already names a window
     */
    public Builder window(String name, RollingWindow window, ExemplarReservoir exemplars) {
      Objects.requireNonNull(exemplars, "exemplars");
      window(name, window);
      this.exemplars.put(name, exemplars);
      return this;
    }

    /**
     * Exports every key of {@code keyed} under {@code name} (attributes {@code window} and {@code
     * key}). Its per-key window configuration must keep a cumulative histogram ({@link
     * WindowConfig.Builder#cumulativeHistogram(boolean)}).
     *
     * @throws NullPointerException if name or keyed is null
     * @throws IllegalArgumentException if name is blank or already names a keyed collection
     */
    public Builder keyed(String name, KeyedWindows keyed) {
      requireName(name, this.keyed.keySet(), "keyed collections");
      this.keyed.put(name, Objects.requireNonNull(keyed, "keyed"));
      return this;
    }

    private static void requireName(String name, Set<String> taken, String what) {
      Checks.requireNonBlank("name", name);
      if (taken.contains(name)) {
        throw Checks.invalid("name", "unique among this producer's " + what, name);
      }
    }

    /** Extra attributes on every point. */
    public Builder attributes(Attributes attributes) {
      this.attributes =
          this.attributes.toBuilder()
              .putAll(Objects.requireNonNull(attributes, "attributes"))
              .build();
      return this;
    }

    /**
     * The scale of every point, -10 to 20 (the base is {@code 2^(2^-scale)}); unless set, each
     * window's {@link ExponentialBuckets#scaleFor(int) scaleFor} its significant digits. A scale
     * finer than that splits no slot: it only spreads the counts over more, partly empty, buckets.
     *
     * @throws IllegalArgumentException if scale is outside -10..20
     */
    public Builder scale(int scale) {
      this.scale = Checks.requireBetween("scale", scale, MIN_SCALE, MAX_SCALE);
      return this;
    }

    /** The windows record durations in this unit; points report seconds. Nanoseconds unless set. */
    public Builder timeUnit(TimeUnit timeUnit) {
      this.valueUnit = ValueUnit.durations(timeUnit);
      return this;
    }

    /**
     * The windows record values that are not durations, in this UCUM unit (like {@code By}),
     * reported as they are.
     */
    public Builder unit(String unit) {
      this.valueUnit = ValueUnit.values(unit);
      return this;
    }

    /** The wall clock of the points' times; the SDK's default clock unless set. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The producer, ready to {@link SdkMeterProviderBuilder#registerMetricProducer register}.
     *
     * @throws IllegalArgumentException if a window keeps no cumulative histogram, or maximum keys
     *     break {@link WindowConventions}' bound
     * @throws IllegalStateException if no window was added
     */
    public WindowHistogramProducer build() {
      Objects.requireNonNull(conventions, "conventions");
      int keys =
          WindowConventions.requireMaximumKeys(
              maximumKeys == null ? conventions.maximumKeys() : maximumKeys);
      if (windows.isEmpty() && keyed.isEmpty()) {
        throw new IllegalStateException(
            "no window to export: add one with window(name, window) or keyed(name, keyed)");
      }
      long now = clock.now();
      List<WindowSource> ws = new ArrayList<>(windows.size());
      for (Map.Entry<String, RollingWindow> e : windows.entrySet()) {
        CumulativeHistogram h =
            e.getValue()
                .cumulativeHistogram()
                .orElseThrow(
                    () ->
                        Checks.invalidConfiguration(
                            "window \""
                                + e.getKey()
                                + "\" keeps no cumulative histogram: create it with a"
                                + " WindowConfig built with"
                                + " WindowConfig.Builder#cumulativeHistogram(true)"));
        ws.add(
            new WindowSource(
                e.getValue(),
                attributes.toBuilder().put(WINDOW_NAME, e.getKey()).build(),
                scale != null ? scale : ExponentialBuckets.scaleFor(h.significantDigits()),
                startEpochNanos(h, now),
                exemplars.get(e.getKey())));
      }
      List<KeyedSource> ks = new ArrayList<>(keyed.size());
      for (Map.Entry<String, KeyedWindows> e : keyed.entrySet()) {
        WindowConfig config = e.getValue().windowConfig();
        if (!config.cumulativeHistogram()) {
          throw Checks.invalidConfiguration(
              "keyed collection \""
                  + e.getKey()
                  + "\" keeps no cumulative histograms: give its KeyedWindows.Builder#window a"
                  + " WindowConfig built with WindowConfig.Builder#cumulativeHistogram(true)");
        }
        ks.add(
            new KeyedSource(
                e.getValue(),
                attributes.toBuilder().put(WINDOW_NAME, e.getKey()).build(),
                scale != null ? scale : ExponentialBuckets.scaleFor(config.significantDigits())));
      }
      return new WindowHistogramProducer(
          ws, ks, valueUnit.unit(), valueUnit.scale(), clock, conventions, keys);
    }
  }
}
