package io.ringtail.micrometer;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.testkit.BindingConventionsContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The Micrometer binding follows {@link WindowConventions} as the other bindings do. */
class MicrometerConventionsTest extends BindingConventionsContract {

  @Override
  protected Supplier<List<Series>> bind(
      WindowConventions conventions,
      Map<String, RollingWindow> windows,
      Map<String, KeyedWindows> keyed) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    windows.forEach(
        (name, w) ->
            WindowMetrics.builder(w, name).conventions(conventions).build().bindTo(registry));
    keyed.forEach(
        (name, k) ->
            KeyedWindowMetrics.builder(k, name).conventions(conventions).build().bindTo(registry));
    return () -> scrape(registry);
  }

  /**
   * As a registry's scrape: the keys gauge first (it reconciles keys with meters), then the rest.
   */
  private static List<Series> scrape(SimpleMeterRegistry registry) {
    registry.find(WindowConventions.KEYED_PREFIX + ".keys").gauges().forEach(g -> g.value());
    List<Series> out = new ArrayList<>();
    for (Meter m : registry.getMeters()) {
      boolean hasValue = false;
      for (var measurement : m.measure()) {
        hasValue |= !Double.isNaN(measurement.getValue()); // NaN: no value this scrape
      }
      if (hasValue) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (Tag t : m.getId().getTags()) {
          labels.put(t.getKey(), t.getValue());
        }
        out.add(new Series(m.getId().getName(), labels));
      }
    }
    return out;
  }

  @Override
  protected void buildWithPercentiles(RollingWindow window, double... percentiles) {
    WindowMetrics.builder(window, "w").percentiles(percentiles).build();
  }

  @Override
  protected void buildWithMaximumKeys(KeyedWindows keyed, int maximumKeys) {
    KeyedWindowMetrics.builder(keyed, "w").maximumKeys(maximumKeys).build();
  }
}
