package io.ringtail.prometheus;

import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.testkit.BindingConventionsContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The Prometheus histograms follow {@link WindowConventions} as the other bindings do. */
class PrometheusConventionsTest extends BindingConventionsContract {

  @Override
  protected Supplier<List<Series>> bind(
      WindowConventions conventions,
      Map<String, RollingWindow> windows,
      Map<String, KeyedWindows> keyed) {
    WindowHistograms.Builder b = WindowHistograms.builder().conventions(conventions);
    windows.forEach(b::window);
    keyed.forEach(b::keyed);
    WindowHistograms histograms = b.build();
    return () -> {
      List<Series> out = new ArrayList<>();
      for (MetricSnapshot m : histograms.collect()) {
        for (DataPointSnapshot p : m.getDataPoints()) {
          Map<String, String> labels = new LinkedHashMap<>();
          for (Label l : p.getLabels()) {
            labels.put(l.getName(), l.getValue());
          }
          out.add(new Series(m.getMetadata().getPrometheusName(), labels));
        }
      }
      return out;
    };
  }

  /** Histograms carry no percentiles: PromQL's histogram_quantile computes them. */
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
    WindowHistograms.builder().keyed("w", keyed).maximumKeys(maximumKeys).build();
  }
}
