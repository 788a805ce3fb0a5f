package io.ringtail.opentelemetry;

import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.testkit.BindingConventionsContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The OpenTelemetry binding follows {@link WindowConventions} as the other bindings do. */
class OpenTelemetryConventionsTest extends BindingConventionsContract {

  @Override
  protected Supplier<List<Series>> bind(
      WindowConventions conventions,
      Map<String, RollingWindow> windows,
      Map<String, KeyedWindows> keyed) {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    Meter meter =
        SdkMeterProvider.builder().registerMetricReader(reader).build().get("io.ringtail");
    windows.forEach(
        (name, w) ->
            WindowTelemetry.builder(w, name).conventions(conventions).build().bindTo(meter));
    keyed.forEach(
        (name, k) ->
            WindowTelemetry.builder(k, name).conventions(conventions).build().bindTo(meter));
    return () -> {
      List<Series> out = new ArrayList<>();
      for (MetricData m : reader.collectAllMetrics()) {
        for (PointData p : m.getData().getPoints()) {
          Map<String, String> labels = new LinkedHashMap<>();
          p.getAttributes().forEach((k, v) -> labels.put(k.getKey(), String.valueOf(v)));
          out.add(new Series(m.getName(), labels));
        }
      }
      return out;
    };
  }

  @Override
  protected void buildWithPercentiles(RollingWindow window, double... percentiles) {
    WindowTelemetry.builder(window, "w").percentiles(percentiles).build();
  }

  @Override
  protected void buildWithMaximumKeys(KeyedWindows keyed, int maximumKeys) {
    WindowTelemetry.builder(keyed, "w").maximumKeys(maximumKeys).build();
  }
}
