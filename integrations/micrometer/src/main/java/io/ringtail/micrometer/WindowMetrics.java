package io.ringtail.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.internal.Checks;

/**
 * Binds one {@link RollingWindow} (in-process, in Redis, any implementation) to a Micrometer {@link
 * MeterRegistry} as gauges of its rolling statistics.
 *
 * <p>Meters, with {@code P} the prefix ({@code ringtail.window} by default), each tagged {@code
 * window=<name>} plus the user's tags: {@code P.samples}, {@code P.rejected}, {@code P.sum}, {@code
 * P.mean}, {@code P.min}, {@code P.max} and one {@code P.percentile} per percentile, tagged {@code
 * phi} the way Micrometer tags percentiles ({@code phi="0.95"}). For duration windows (the default,
 * nanoseconds) the value gauges are {@code TimeGauge}s reported in the registry's base time unit.
 * Mean, min, max and percentiles of an empty window read {@code NaN}, never 0. Gauges hold the
 * window strongly.
 *
 * <p>Beside these rolling gauges, three {@code FunctionCounter}s report the window's {@link
 * io.ringtail.WindowTotals totals since creation}, monotonic, for {@code rate()} and {@code
 * increase()}: {@code P.recorded} (samples), {@code P.recorded.sum} (their sum, in seconds for
 * duration windows) and {@code P.rejections}. Prometheus shows them as {@code
 * ringtail_window_recorded_total}, {@code ringtail_window_recorded_sum_seconds_total} and {@code
 * ringtail_window_rejections_total}. They read NaN for a window that keeps no totals.
 *
 * <p>One scrape, one snapshot: all gauges of a window read the same {@link
 * io.ringtail.WindowSnapshot}, taken once per scrape, so P95 never exceeds P99 within a scrape and
 * the counters agree with the gauges. Each {@link #bindTo} gets its own snapshot, so two registries
 * never disturb each other.
 *
 * <p>Names, labels, the percentile rule and failure handling are those of {@link
 * io.ringtail.WindowConventions}, shared with the OpenTelemetry and Prometheus bindings: a window
 * whose snapshot throws reads NaN for that scrape, and is logged as the conventions say. {@link
 * Builder#conventions} passes your own defaults.
 *
 * <p>Immutable and thread-safe; binding may be repeated on several registries.
 */
public final class WindowMetrics implements MeterBinder {
  private final RollingWindow window;
  private final MeterSpec spec;

  private WindowMetrics(RollingWindow window, MeterSpec spec) {
    this.window = window;
    this.spec = spec;
  }

  /**
   * Binds a window of nanosecond durations under {@code name} with the default options and returns
   * it: {@code WindowMetrics.monitor(registry, RollingWindow.create(config), "checkout")}.
   *
   * @param tags extra tags as key-value pairs
   */
  public static <W extends RollingWindow> W monitor(
      MeterRegistry registry, W window, String name, String... tags) {
    return monitor(registry, window, name, Tags.of(tags));
  }

  /** Binds a window of nanosecond durations under {@code name} with extra tags and returns it. */
  public static <W extends RollingWindow> W monitor(
      MeterRegistry registry, W window, String name, Iterable<Tag> tags) {
    builder(window, name).tags(tags).build().bindTo(registry);
    return window;
  }

  /** A builder binding {@code window} under {@code name} (the value of the {@code window} tag). */
  public static Builder builder(RollingWindow window, String name) {
    return new Builder(window, name);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    spec.register(Checks.requireNonNull("registry", registry), window, Tags.empty());
    BoundWindows.add(registry, window);
  }

  /**
   * Whether a {@code WindowMetrics} or {@link KeyedWindowMetrics} has bound {@code windows} (a
   * {@link RollingWindow}, a {@code KeyedWindows} or a map of windows, compared by identity) to
   * {@code registry}: for auto-configuration that binds whatever the application has not bound
   * itself, so no window is published twice under two names.
   */
  public static boolean isBound(MeterRegistry registry, Object windows) {
    return BoundWindows.contains(
        Checks.requireNonNull("registry", registry), Checks.requireNonNull("windows", windows));
  }

  @Override
  public String toString() {
    return "WindowMetrics[" + spec + "]";
  }

  /** Fluent builder of a {@link WindowMetrics}; reusable, not thread-safe. */
  public static final class Builder extends SpecBuilder<Builder> {
    private final RollingWindow window;

    private Builder(RollingWindow window, String name) {
      super(name, WindowConventions.WINDOW_PREFIX);
      this.window = Checks.requireNonNull("window", window);
    }

    /** The binder, ready to {@link WindowMetrics#bindTo bind}. */
    public WindowMetrics build() {
      return new WindowMetrics(window, spec());
    }
  }
}
