package io.ringtail.opentelemetry;

import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.resources.Resource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.testkit.BindingConventionsContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The OpenTelemetry histogram producer follows {@link WindowConventions} as the bindings do. */
class HistogramProducerConventionsTest extends BindingConventionsContract {

  @Override
  protected Supplier<List<Series>> bind(
      WindowConventions conventions,
      Map<String, RollingWindow> windows,
      Map<String, KeyedWindows> keyed) {
    WindowHistogramProducer.Builder b = WindowHistogramProducer.builder().conventions(conventions);
    windows.forEach(b::window);
    keyed.forEach(b::keyed);
    WindowHistogramProducer producer = b.build();
    return () -> {
      List<Series> out = new ArrayList<>();
      for (MetricData m : producer.produce(Resource.empty())) {
        for (PointData p : m.getData().getPoints()) {
          Map<String, String> labels = new LinkedHashMap<>();
          p.getAttributes().forEach((k, v) -> labels.put(k.getKey(), String.valueOf(v)));
          out.add(new Series(m.getName(), labels));
        }
      }
      return out;
    };
  }

  /** Exponential histograms carry no percentiles: the backend computes them. */
  @Override
  protected boolean publishesPercentiles() {
    return false;
  }

  @Override
  protected void buildWithPercentiles(RollingWindow window, double... percentiles) {
    throw new UnsupportedOperationException("no percentiles");
  }

  @Override
  protected void buildWithMaximumKeys(KeyedWindows keyed, int maximumKeys) {
    WindowHistogramProducer.builder().keyed("w", keyed).maximumKeys(maximumKeys).build();
  }
}
