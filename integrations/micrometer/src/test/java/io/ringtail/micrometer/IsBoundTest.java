package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class IsBoundTest {
  private final WindowConfig config =
      WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();

  @Test
  void aWindowIsBound_toTheRegistriesItWasBoundTo_only() {
    SimpleMeterRegistry one = new SimpleMeterRegistry();
    SimpleMeterRegistry two = new SimpleMeterRegistry();
    RollingWindow window = RollingWindow.create(config);
    RollingWindow other = RollingWindow.create(config);
    assertThat(WindowMetrics.isBound(one, window)).isFalse();
    WindowMetrics.monitor(one, window, "checkout");
    assertThat(WindowMetrics.isBound(one, window)).isTrue();
    assertThat(WindowMetrics.isBound(two, window)).isFalse();
    assertThat(WindowMetrics.isBound(one, other)).isFalse();
  }

  @Test
  void keyedCollectionsAndMaps_countToo() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KeyedWindows keyed = KeyedWindows.builder().window(config).build();
    Map<String, RollingWindow> map = new ConcurrentHashMap<>();
    KeyedWindowMetrics.monitor(registry, keyed, "tenants");
    KeyedWindowMetrics.monitor(registry, map, "tools");
    assertThat(WindowMetrics.isBound(registry, keyed)).isTrue();
    assertThat(WindowMetrics.isBound(registry, map)).isTrue();
  }
}
