package io.ringtail.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.WindowFailures;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Binds a {@link RollingWindow} (in-process or in Redis) or a {@link KeyedWindows} collection to an
 * OpenTelemetry {@link Meter}: observable gauges of the rolling statistics and observable counters
 * of the totals since creation, all fed by one {@link Meter#batchCallback batch callback} that
 * takes one snapshot per window (per key) per collection.
 *
 * <p>One line: {@code WindowTelemetry.observe(openTelemetry.getMeter("io.ringtail"), window,
 * "checkout")}.
 *
 * <h2>Instruments</h2>
 *
 * Gauges of the window as of the collection: {@code ringtail.window.samples} and {@code
 * ringtail.window.rejected} ({@code {sample}}), {@code ringtail.window.sum}, {@code .mean}, {@code
 * .min}, {@code .max} and {@code ringtail.window.percentile} (one point per percentile, attribute
 * {@code phi}, the fraction: {@code "0.95"}; percentiles are given as fractions too). Counters of
 * the {@link WindowTotals}, monotonic: {@code ringtail.window.recorded} and {@code
 * ringtail.window.rejections} ({@code {sample}}) and {@code ringtail.window.recorded_sum}. Value
 * instruments are in seconds ({@code s}) for duration windows (the default, recorded in
 * nanoseconds), else in the unit given. A keyed collection's instruments are named {@code
 * ringtail.keyed.*} instead. Every point carries {@code window} (the name), the user's attributes
 * and, for a keyed collection, {@code key}.
 *
 * <p>Names and labels are the Micrometer binding's ({@code io.ringtail.micrometer}): exported to
 * Prometheus, both give {@code ringtail_window_percentile_seconds{phi="0.95",window="checkout"}},
 * so a dashboard survives a switch of binding.
 *
 * <p>An empty window reports its counts, sum and counters but no mean, min, max or percentile
 * point: no data, never a false zero. A keyed collection reports the keys it holds at each
 * collection, so keys appear and disappear with it; at most {@link Builder#maximumKeys maximumKeys}
 * keys are reported, those with the most samples in their windows.
 *
 * <p>Names, labels, the percentile rule, the key bound and its selection, and failure handling are
 * those of {@link WindowConventions}, shared with the Micrometer and Prometheus bindings: a window
 * (or keyed collection) that cannot give a snapshot (Redis down, no fallback) reports nothing for
 * that collection while the others report as usual, and is logged as the conventions say. {@link
 * Builder#conventions} passes your own defaults.
 *
 * <p>Immutable and thread-safe; {@link #bindTo} may be called for several meters, and each returned
 * {@link BatchCallback} unbinds when closed.
 */
public final class WindowTelemetry {
  /**
   * The window's name on every point: {@code window}, the label the Micrometer binding uses, so a
   * dashboard selects the same series whichever binding exports them.
   */
  public static final AttributeKey<String> WINDOW_NAME =
      AttributeKey.stringKey(WindowConventions.WINDOW_TAG);

  /** The key of a keyed collection's window: {@code key}, as in the Micrometer binding. */
  public static final AttributeKey<String> WINDOW_KEY =
      AttributeKey.stringKey(WindowConventions.KEY_TAG);

  /**
   * The percentile of a {@code .percentile} point as a fraction in Micrometer's format ({@code
   * phi="0.95"} for P95), as the Micrometer binding and Micrometer's own percentiles label theirs.
   */
  public static final AttributeKey<String> PERCENTILE =
      AttributeKey.stringKey(WindowConventions.PERCENTILE_TAG);

  /** Instrument names of single windows. */
  static final String WINDOW_PREFIX = WindowConventions.WINDOW_PREFIX;

  /** Instrument names of keyed collections (their points carry the key attribute). */
  static final String KEYED_PREFIX = WindowConventions.KEYED_PREFIX;

  private final RollingWindow window;
  private final KeyedWindows keyed;
  private final Attributes attributes;
  private final double[] percentiles;
  private final Attributes[] percentileAttributes;
  private final String unit;
  private final double scale;
  private final int maximumKeys;
  private final String name;
  private final WindowFailures failures;

  private WindowTelemetry(Builder b) {
    WindowConventions conventions = Objects.requireNonNull(b.conventions, "conventions");
    this.name = b.name;
    this.window = b.window;
    this.keyed = b.keyed;
    this.attributes = b.attributes.toBuilder().put(WINDOW_NAME, b.name).build();
    this.percentiles =
        b.percentiles == null
            ? conventions.percentiles()
            : WindowConventions.requirePercentiles(b.percentiles);
    this.percentileAttributes = percentileAttributes(attributes);
    this.unit = b.valueUnit.unit();
    this.scale = b.valueUnit.scale();
    this.maximumKeys =
        WindowConventions.requireMaximumKeys(
            b.maximumKeys == null ? conventions.maximumKeys() : b.maximumKeys);
    this.failures = conventions.failures();
  }

  /** Binds a window of nanosecond durations under {@code name} with the defaults. */
  public static BatchCallback observe(Meter meter, RollingWindow window, String name) {
    return builder(window, name).build().bindTo(meter);
  }

  /**
   * Binds every key of {@code keyed} (nanosecond durations) under {@code name} with the defaults.
   */
  public static BatchCallback observe(Meter meter, KeyedWindows keyed, String name) {
    return builder(keyed, name).build().bindTo(meter);
  }

  /** A builder binding one window under {@code name}. */
  public static Builder builder(RollingWindow window, String name) {
    return new Builder(Objects.requireNonNull(window, "window"), null, name);
  }

  /** A builder binding every key of {@code keyed} under {@code name}. */
  public static Builder builder(KeyedWindows keyed, String name) {
    return new Builder(null, Objects.requireNonNull(keyed, "keyed"), name);
  }

  /**
   * Creates the instruments on {@code meter} and registers the batch callback that feeds them.
   * Close the returned callback to stop reporting.
   */
  public BatchCallback bindTo(Meter meter) {
    Objects.requireNonNull(meter, "meter");
    Instruments in = new Instruments(meter, keyed == null ? WINDOW_PREFIX : KEYED_PREFIX);
    Runnable callback =
        () -> {
          if (keyed == null) {
            WindowSnapshot s = snapshotOf(window);
            if (s != null) {
              in.record(s, attributes, percentileAttributes);
            }
          } else {
            for (Map.Entry<String, WindowSnapshot> e : keySnapshots(in).entrySet()) {
              Attributes at = attributes.toBuilder().put(WINDOW_KEY, e.getKey()).build();
              in.record(e.getValue(), at, e.getValue().isEmpty() ? null : percentileAttributes(at));
            }
          }
        };
    return meter.batchCallback(
        callback,
        in.samples,
        in.rejected,
        in.sum,
        in.mean,
        in.min,
        in.max,
        in.percentile,
        in.recorded,
        in.rejections,
        in.recordedSum);
  }

  private WindowSnapshot snapshotOf(RollingWindow window) {
    return failures.read(name, "window \"" + name + "\"", window.timeSource(), window::snapshot);
  }

  /** The keys held now, at most maximumKeys of them (those with the most samples). */
  private Map<String, WindowSnapshot> keySnapshots(Instruments in) {
    Map<String, WindowSnapshot> all =
        failures.read(name, "keyed windows \"" + name + "\"", keyed.timeSource(), keyed::snapshots);
    if (all == null) {
      return Map.of();
    }
    Map<String, WindowSnapshot> last = in.reported;
    in.reported =
        WindowConventions.busiest(all, maximumKeys, WindowSnapshot::count, last::containsKey);
    return in.reported;
  }

  @Override
  public String toString() {
    return "WindowTelemetry["
        + attributes
        + ", percentiles="
        + Arrays.toString(percentiles)
        + ", unit="
        + unit
        + (keyed == null ? "" : ", maximumKeys=" + maximumKeys)
        + "]";
  }

  /** The observers of one binding; used by its callback only, which the SDK serialises. */
  private final class Instruments {
    final ObservableLongMeasurement samples;
    final ObservableLongMeasurement rejected;
    final ObservableDoubleMeasurement sum;
    final ObservableDoubleMeasurement mean;
    final ObservableDoubleMeasurement min;
    final ObservableDoubleMeasurement max;
    final ObservableDoubleMeasurement percentile;
    final ObservableLongMeasurement recorded;
    final ObservableLongMeasurement rejections;
    final ObservableDoubleMeasurement recordedSum;

    /** The keys the last collection reported: they stay on a tie at the key bound. */
    Map<String, WindowSnapshot> reported = Map.of();

    Instruments(Meter meter, String p) {
      samples =
          meter
              .gaugeBuilder(p + ".samples")
              .ofLongs()
              .setUnit("{sample}")
              .setDescription("Samples in the rolling window")
              .buildObserver();
      rejected =
          meter
              .gaugeBuilder(p + ".rejected")
              .ofLongs()
              .setUnit("{sample}")
              .setDescription("Samples rejected as out of range in the rolling window")
              .buildObserver();
      sum = value(meter, p + ".sum", "Sum of the samples in the rolling window");
      mean = value(meter, p + ".mean", "Mean of the samples in the rolling window");
      min = value(meter, p + ".min", "Smallest sample in the rolling window");
      max = value(meter, p + ".max", "Largest sample in the rolling window");
      percentile =
          value(
              meter,
              p + ".percentile",
              "Nearest-rank percentile of the samples in the rolling window");
      recorded =
          meter
              .counterBuilder(p + ".recorded")
              .setUnit("{sample}")
              .setDescription("Samples recorded since the window was created")
              .buildObserver();
      rejections =
          meter
              .counterBuilder(p + ".rejections")
              .setUnit("{sample}")
              .setDescription("Samples rejected as out of range since the window was created")
              .buildObserver();
      recordedSum =
          meter
              .counterBuilder(p + ".recorded_sum")
              .ofDoubles()
              .setUnit(unit)
              .setDescription("Sum of the samples recorded since the window was created")
              .buildObserver();
    }

    private ObservableDoubleMeasurement value(Meter meter, String name, String description) {
      return meter.gaugeBuilder(name).setUnit(unit).setDescription(description).buildObserver();
    }

    void record(WindowSnapshot s, Attributes at, Attributes[] percentileAt) {
      samples.record(s.count(), at);
      rejected.record(s.rejected(), at);
      sum.record(s.sum() * scale, at);
      if (!s.isEmpty()) {
        mean.record(s.mean() * scale, at);
        min.record(s.min() * scale, at);
        max.record(s.max() * scale, at);
        for (int i = 0; i < percentiles.length; i++) {
          percentile.record(
              s.valueAtPercentile(WindowConventions.percentileOf(percentiles[i])) * scale,
              percentileAt[i]);
        }
      }
      WindowTotals totals = s.totals().orElse(null);
      if (totals != null) {
        recorded.record(totals.count(), at);
        rejections.record(totals.rejected(), at);
        recordedSum.record(totals.sum() * scale, at);
      }
    }
  }

  /** The attributes of each percentile's point, given the window's. */
  private Attributes[] percentileAttributes(Attributes at) {
    Attributes[] out = new Attributes[percentiles.length];
    for (int i = 0; i < out.length; i++) {
      out[i] =
          at.toBuilder().put(PERCENTILE, WindowConventions.percentileLabel(percentiles[i])).build();
    }
    return out;
  }

  /** Fluent builder of a {@link WindowTelemetry}; reusable, not thread-safe. */
  public static final class Builder {
    private final RollingWindow window;
    private final KeyedWindows keyed;
    private final String name;
    private Attributes attributes = Attributes.empty();
    private WindowConventions conventions = WindowConventions.defaults();
    private double[] percentiles;
    private ValueUnit valueUnit = ValueUnit.NANOSECONDS;
    private Integer maximumKeys;

    private Builder(RollingWindow window, KeyedWindows keyed, String name) {
      Checks.requireNonBlank("name", name);
      this.window = window;
      this.keyed = keyed;
      this.name = name;
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
     * The conventions this binding follows ({@link WindowConventions#defaults()} unless set): its
     * default percentiles and maximum keys, and how often a failing window is logged. Values set on
     * this builder win over the conventions' defaults.
     */
    public Builder conventions(WindowConventions conventions) {
      this.conventions = conventions;
      return this;
    }

    /**
     * The percentiles reported, as fractions ({@code 0.95} for P95; {@link
     * WindowConventions#requirePercentiles the rule}); the conventions' (0.5, 0.95 and 0.99 by
     * default) unless set. Checked by {@link #build()}.
     */
    public Builder percentiles(double... percentiles) {
      this.percentiles = Objects.requireNonNull(percentiles, "percentiles").clone();
      return this;
    }

    /**
     * The window records durations in this unit; value instruments report seconds. Nanoseconds
     * unless set.
     */
    public Builder timeUnit(TimeUnit timeUnit) {
      this.valueUnit = ValueUnit.durations(timeUnit);
      return this;
    }

    /**
     * The window records values that are not durations, in this UCUM unit (like {@code By}),
     * reported as they are.
     */
    public Builder unit(String unit) {
      this.valueUnit = ValueUnit.values(unit);
      return this;
    }

    /**
     * The most keys of a keyed collection reported per collection, 1 to {@value
     * WindowConventions#MAXIMUM_KEYS_LIMIT}; the conventions' (100 by default) unless set. Past it,
     * the keys with the most samples ({@link WindowConventions#busiest}). Checked by {@link
     * #build()}.
     */
    public Builder maximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /**
     * The binder, ready to {@link WindowTelemetry#bindTo bind}.
     *
     * @throws IllegalArgumentException if the percentiles or maximum keys break {@link
     *     WindowConventions}' rules
     */
    public WindowTelemetry build() {
      return new WindowTelemetry(this);
    }
  }
}
