package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.util.DoubleFormat;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The Micrometer binding takes its defaults from the {@link WindowConventions} it is given. */
class ConventionsTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final WindowConventions conventions =
      WindowConventions.builder().percentiles(0.9).maximumKeys(2).build();

  @Test
  void percentileLabel_isWhatMicrometerWritesForItsOwnPercentiles() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 10_000; i++) {
      double p = i < 1_001 ? i / 1000.0 : random.nextDouble();
      assertThat(WindowConventions.percentileLabel(p))
          .as("phi of %s", p)
          .isEqualTo(DoubleFormat.decimalOrNan(p));
    }
  }

  @Test
  void conventions_givesTheDefaultPercentiles_andBuilderValuesWin() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), time);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WindowMetrics.builder(window, "a").conventions(conventions).build().bindTo(registry);
    WindowMetrics.builder(window, "b")
        .conventions(conventions)
        .percentiles(0.5)
        .build()
        .bindTo(registry);
    assertThat(phis(registry, "a")).containsExactly("0.9");
    assertThat(phis(registry, "b")).containsExactly("0.5");
  }

  @Test
  void conventions_givesTheDefaultMaximumKeys() {
    Map<String, RollingWindow> windows = new HashMap<>();
    for (String key : new String[] {"x", "y", "z"}) {
      windows.put(key, RollingWindow.create(WindowConfig.defaults(), time));
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KeyedWindowMetrics.builder(windows, "k").conventions(conventions).build().bindTo(registry);
    assertThat(registry.get("ringtail.keyed.keys.bound").gauge().value()).isEqualTo(2);
    KeyedWindowMetrics.builder(windows, "k2")
        .prefix("other")
        .conventions(conventions)
        .maximumKeys(3)
        .build()
        .bindTo(registry);
    assertThat(registry.get("other.keys.bound").gauge().value()).isEqualTo(3);
  }

  private static java.util.List<String> phis(SimpleMeterRegistry registry, String window) {
    return registry.find("ringtail.window.percentile").tag("window", window).meters().stream()
        .map(Meter::getId)
        .map(id -> id.getTag("phi"))
        .toList();
  }
}
