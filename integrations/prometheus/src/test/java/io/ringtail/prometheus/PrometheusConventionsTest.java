package io.ringtail.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.micrometer.WindowMetrics;
import io.ringtail.testkit.BindingConventionsContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

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

  @Test
  void oneConventionsInstance_configuresMicrometerAndPrometheusAlike() {
    RollingWindow checkout = RollingWindow.create(WindowConfig.defaults(), time);
    KeyedWindows perTenant =
        KeyedWindows.builder()
            .window(WindowConfig.builder().cumulativeHistogram(true).build())
            .timeSource(time)
            .build();
    for (int i = 0; i < 600; i++) {
      perTenant.record("tenant-" + i, 1_000_000);
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PrometheusRegistry prometheusRegistry = new PrometheusRegistry();
    // docs:window-conventions:start
    WindowConventions conventions =
        WindowConventions.builder().percentiles(0.5, 0.9, 0.99).maximumKeys(500).build();
    WindowMetrics.builder(checkout, "checkout").conventions(conventions).build().bindTo(registry);
    WindowHistograms.builder()
        .conventions(conventions)
        .keyed("per-tenant", perTenant)
        .build()
        .register(prometheusRegistry);
    // docs:window-conventions:end
    assertThat(registry.find("ringtail.window.percentile").meters())
        .extracting(m -> m.getId().getTag(WindowConventions.PERCENTILE_TAG))
        .containsExactlyInAnyOrder("0.5", "0.9", "0.99");
    assertThat(prometheusRegistry.scrape().get(0).getDataPoints()).hasSize(500);
  }

  @Test
  void aKeyedCollection_mayCarryItsOwnBound() {
    WindowConfig config = WindowConfig.builder().cumulativeHistogram(true).build();
    KeyedWindows a = KeyedWindows.builder().window(config).timeSource(time).build();
    KeyedWindows b = KeyedWindows.builder().window(config).timeSource(time).build();
    for (String key : new String[] {"x", "y", "z"}) {
      a.record(key, 1_000_000);
      b.record(key, 1_000_000);
    }
    WindowHistograms histograms =
        WindowHistograms.builder()
            .maximumKeys(1)
            .keyed("a", a)
            .keyed("b", b, key -> Map.of("part", key), 3)
            .build();
    assertThat(histograms.collect().get(0).getDataPoints())
        .extracting(p -> p.getLabels().get(WindowConventions.WINDOW_TAG))
        .containsExactlyInAnyOrder("a", "b", "b", "b");
    assertThatThrownBy(() -> WindowHistograms.builder().keyed("c", b, key -> Map.of(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maximumKeys must be between 1 and 100000, but was 0");
  }
}
