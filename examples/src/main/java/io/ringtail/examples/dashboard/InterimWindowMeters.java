package io.ringtail.examples.dashboard;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * INTERIM minimal path until the {@code io.ringtail.micrometer} binder lands: gauges for both
 * dashboard windows, all read from the model's latest once-a-second sample, so one scrape sees
 * one snapshot. Latencies are exported in seconds, Micrometer's base unit for time.
 */
final class InterimWindowMeters {
  private InterimWindowMeters() {}

  static void bind(MeterRegistry registry, DashboardModel model, String shortLabel, String longLabel) {
    bindWindow(registry, model, shortLabel, Point::shortWindow);
    bindWindow(registry, model, longLabel, Point::longWindow);
  }

  private static void bindWindow(MeterRegistry registry, DashboardModel model, String label,
      Function<Point, WindowStats> which) {
    String window = label.replace(" ", "");
    gauge(registry, model, "ringtail.window.count", "samples in the window", null, window, null, which, s -> s.count());
    gauge(registry, model, "ringtail.window.mean", "mean of the window", "seconds", window, null, which,
        s -> s.meanMillis() / 1000);
    gauge(registry, model, "ringtail.window.max", "largest sample in the window", "seconds", window, null, which,
        s -> s.maxMillis() / 1000);
    gauge(registry, model, "ringtail.window.percentile", "nearest-rank percentile of the window", "seconds", window, "0.95", which,
        s -> s.p95Millis() / 1000);
    gauge(registry, model, "ringtail.window.percentile", "nearest-rank percentile of the window", "seconds", window, "0.99", which,
        s -> s.p99Millis() / 1000);
  }

  private static void gauge(MeterRegistry registry, DashboardModel model, String name, String help,
      String unit,
      String window, String phi, Function<Point, WindowStats> which, ToDoubleFunction<WindowStats> f) {
    Gauge.Builder<DashboardModel> b = Gauge.builder(name, model, m -> {
          Point p = m.latest();
          return p == null ? Double.NaN : f.applyAsDouble(which.apply(p));
        })
        .description(help)
        .tag("window", window)
        .strongReference(true)
        .baseUnit(unit);
    if (phi != null) {
      b.tag("phi", phi);
    }
    b.register(registry);
  }
}
