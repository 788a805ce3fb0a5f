package io.ringtail.opentelemetry;

import static io.ringtail.opentelemetry.WindowTelemetry.PERCENTILE;
import static io.ringtail.opentelemetry.WindowTelemetry.WINDOW_KEY;
import static io.ringtail.opentelemetry.WindowTelemetry.WINDOW_NAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.testkit.CountingWindow;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WindowTelemetryTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).stripes(1).build();
  private final ManualTimeSource time = new ManualTimeSource(5_000_000_000_000L);
  private final InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final SdkMeterProvider provider =
      SdkMeterProvider.builder().registerMetricReader(reader).build();
  private final Meter meter = provider.get("io.ringtail");

  @AfterEach
  void close() {
    provider.close();
  }

  @Test
  void docsExample_totalsOutliveTheWindow() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    window.record(2_000_000);
    time.advance(Duration.ofMinutes(5));
    window.record(3_000_000);
    // docs:window-totals:start
    WindowSnapshot s = window.snapshot();
    s.count(); // samples in the rolling window
    s.totals().orElseThrow().count(); // samples since the window was created, monotonic
    // docs:window-totals:end
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.totals().orElseThrow().count()).isEqualTo(2);
  }

  @Test
  void docsExample_bindsWindowsAndStopsReporting() {
    OpenTelemetry openTelemetry = OpenTelemetrySdk.builder().setMeterProvider(provider).build();
    RollingWindow window = RollingWindow.create(CONFIG, time);
    KeyedWindows keyedWindows = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    window.record(2_000_000);
    keyedWindows.record("tenant-a", 3_000_000);
    // docs:opentelemetry-binding:start
    Meter meter = openTelemetry.getMeter("io.ringtail");
    BatchCallback binding = WindowTelemetry.observe(meter, window, "checkout");
    WindowTelemetry.observe(meter, keyedWindows, "per-tenant");
    WindowTelemetry.builder(window, "payload")
        .unit("By")
        .percentiles(0.5, 0.99)
        .build()
        .bindTo(meter);
    binding.close(); // stops reporting
    // docs:opentelemetry-binding:end
    Map<String, MetricData> metrics = collect();
    assertThat(metrics).containsKey("ringtail.window.samples");
    assertThat(metrics.get("ringtail.window.samples").getLongGaugeData().getPoints())
        .extracting(point -> point.getAttributes().get(WINDOW_NAME))
        .containsExactly("payload");
    assertThat(metrics.get("ringtail.keyed.samples").getLongGaugeData().getPoints())
        .extracting(point -> point.getAttributes().get(WINDOW_NAME))
        .containsExactly("per-tenant");
  }

  @Test
  void randomStream_everyPointEqualsASnapshotTakenAtTheSameTime() {
    SplittableRandom random = new SplittableRandom(68);
    RollingWindow window = RollingWindow.create(CONFIG, time);
    WindowTelemetry.builder(window, "checkout")
        .percentiles(0.5, 0.95, 0.999)
        .attributes(Attributes.of(AttributeKey.stringKey("service.name"), "shop"))
        .build()
        .bindTo(meter);
    for (int round = 0; round < 30; round++) {
      for (int i = random.nextInt(200); i > 0; i--) {
        window.record(random.nextInt(20) == 0 ? -1 : random.nextLong(1_000, 5_000_000_000L));
      }
      time.advance(Duration.ofMillis(random.nextLong(0, 20_000)));
      Map<String, MetricData> metrics = collect();
      WindowSnapshot s = window.snapshot(); // same injected time as the collection
      Attributes at =
          Attributes.of(AttributeKey.stringKey("service.name"), "shop", WINDOW_NAME, "checkout");
      assertThat(longValue(metrics, "ringtail.window.samples", at)).isEqualTo(s.count());
      assertThat(longValue(metrics, "ringtail.window.rejected", at)).isEqualTo(s.rejected());
      assertThat(doubleValue(metrics, "ringtail.window.sum", at))
          .isCloseTo(s.sum() * 1e-9, within(1e-9));
      WindowTotals totals = s.totals().orElseThrow();
      assertThat(longValue(metrics, "ringtail.window.recorded", at)).isEqualTo(totals.count());
      assertThat(longValue(metrics, "ringtail.window.rejections", at)).isEqualTo(totals.rejected());
      assertThat(doubleValue(metrics, "ringtail.window.recorded_sum", at))
          .isCloseTo(totals.sum() * 1e-9, within(1e-6));
      if (s.isEmpty()) {
        assertThat(metrics)
            .doesNotContainKeys("ringtail.window.mean", "ringtail.window.percentile");
        continue;
      }
      assertThat(doubleValue(metrics, "ringtail.window.mean", at))
          .isCloseTo(s.mean() * 1e-9, within(1e-12));
      assertThat(doubleValue(metrics, "ringtail.window.min", at)).isEqualTo(s.min() * 1e-9);
      assertThat(doubleValue(metrics, "ringtail.window.max", at)).isEqualTo(s.max() * 1e-9);
      for (String p : new String[] {"0.5", "0.95", "0.999"}) {
        assertThat(
                doubleValue(
                    metrics,
                    "ringtail.window.percentile",
                    at.toBuilder().put(PERCENTILE, p).build()))
            .isEqualTo(s.valueAtPercentile(Double.parseDouble(p) * 100) * 1e-9);
      }
    }
  }

  @Test
  void instruments_haveKindsAndUnits() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    WindowTelemetry.observe(meter, window, "checkout");
    window.record(1_000_000);
    Map<String, MetricData> metrics = collect();
    assertThat(metrics.get("ringtail.window.recorded").getType())
        .isEqualTo(MetricDataType.LONG_SUM);
    assertThat(metrics.get("ringtail.window.recorded").getLongSumData().isMonotonic()).isTrue();
    assertThat(metrics.get("ringtail.window.recorded_sum").getType())
        .isEqualTo(MetricDataType.DOUBLE_SUM);
    assertThat(metrics.get("ringtail.window.recorded_sum").getUnit()).isEqualTo("s");
    assertThat(metrics.get("ringtail.window.percentile").getType())
        .isEqualTo(MetricDataType.DOUBLE_GAUGE);
    assertThat(metrics.get("ringtail.window.percentile").getUnit()).isEqualTo("s");
    assertThat(metrics.get("ringtail.window.samples").getUnit()).isEqualTo("{sample}");
  }

  @Test
  void oneSnapshotPerCollection() {
    CountingWindow window = new CountingWindow(RollingWindow.create(CONFIG, time));
    WindowTelemetry.observe(meter, window, "checkout");
    window.record(5);
    for (int i = 1; i <= 3; i++) {
      collect();
      assertThat(window.snapshots()).isEqualTo(i);
    }
  }

  @Test
  void emptyWindow_reportsCountsButNoValues() {
    WindowTelemetry.observe(meter, RollingWindow.create(CONFIG, time), "idle");
    Map<String, MetricData> metrics = collect();
    Attributes at = Attributes.of(WINDOW_NAME, "idle");
    assertThat(longValue(metrics, "ringtail.window.samples", at)).isZero();
    assertThat(longValue(metrics, "ringtail.window.recorded", at)).isZero();
    assertThat(metrics)
        .doesNotContainKeys(
            "ringtail.window.mean",
            "ringtail.window.min",
            "ringtail.window.max",
            "ringtail.window.percentile");
  }

  @Test
  void failingWindow_reportsNothing_andOthersStillReport() {
    RollingWindow healthy = RollingWindow.create(CONFIG, time);
    healthy.record(10);
    WindowTelemetry.observe(
        meter,
        new CountingWindow(healthy) {
          @Override
          public WindowSnapshot snapshot() {
            throw new IllegalStateException("redis down");
          }
        },
        "broken");
    WindowTelemetry.observe(meter, healthy, "healthy");
    Map<String, MetricData> metrics = collect();
    assertThat(attributesOf(metrics, "ringtail.window.samples"))
        .containsExactly(Attributes.of(WINDOW_NAME, "healthy"));
  }

  @Test
  void keyedCollection_keysAppearAndDisappearWithIt() {
    KeyedWindows keyed = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    BatchCallback binding = WindowTelemetry.observe(meter, keyed, "per-user");
    assertThat(collect()).isEmpty();

    keyed.record("alice", 20_000_000);
    keyed.record("bob", 30_000_000);
    keyed.record("bob", 40_000_000);
    Map<String, MetricData> metrics = collect();
    assertThat(keysOf(metrics, "ringtail.keyed.samples")).containsExactlyInAnyOrder("alice", "bob");
    Attributes bob = Attributes.of(WINDOW_NAME, "per-user", WINDOW_KEY, "bob");
    assertThat(longValue(metrics, "ringtail.keyed.samples", bob)).isEqualTo(2);
    assertThat(longValue(metrics, "ringtail.keyed.recorded", bob)).isEqualTo(2);
    assertThat(
            doubleValue(
                metrics,
                "ringtail.keyed.percentile",
                bob.toBuilder().put(PERCENTILE, "0.99").build()))
        .isEqualTo(keyed.snapshot("bob").valueAtPercentile(99) * 1e-9);

    time.advance(Duration.ofSeconds(61)); // both keys idle for longer than their window
    keyed.record("carol", 1_000);
    metrics = collect();
    assertThat(keysOf(metrics, "ringtail.keyed.samples")).containsExactly("carol");
    assertThat(keysOf(metrics, "ringtail.keyed.recorded")).containsExactly("carol");

    binding.close();
    assertThat(collect()).isEmpty();
  }

  @Test
  void keyedCollection_reportsTheBusiestKeysUpToTheCap() {
    KeyedWindows keyed = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    WindowTelemetry.builder(keyed, "per-user").maximumKeys(2).build().bindTo(meter);
    for (int k = 1; k <= 5; k++) {
      for (int i = 0; i < k; i++) {
        keyed.record("user" + k, 1_000);
      }
    }
    assertThat(keysOf(collect(), "ringtail.keyed.samples"))
        .containsExactlyInAnyOrder("user4", "user5");
  }

  @Test
  void nonDurationUnit_reportsValuesAsRecorded() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    WindowTelemetry.builder(window, "payload").unit("By").percentiles().build().bindTo(meter);
    window.record(1500);
    window.record(500);
    Map<String, MetricData> metrics = collect();
    Attributes at = Attributes.of(WINDOW_NAME, "payload");
    assertThat(doubleValue(metrics, "ringtail.window.max", at)).isEqualTo(1500);
    assertThat(doubleValue(metrics, "ringtail.window.recorded_sum", at)).isEqualTo(2000);
    assertThat(metrics.get("ringtail.window.max").getUnit()).isEqualTo("By");
    assertThat(metrics).doesNotContainKey("ringtail.window.percentile");
  }

  @Test
  void builder_rejectsBadInputByName() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    assertThatThrownBy(() -> WindowTelemetry.builder(window, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
    assertThatThrownBy(() -> WindowTelemetry.builder((RollingWindow) null, "w"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("window");
    assertThatThrownBy(() -> WindowTelemetry.builder(window, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be non-blank, but was \" \"");
    assertThatThrownBy(() -> WindowTelemetry.builder(window, "w").percentiles(101).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was 101.0");
    assertThatThrownBy(() -> WindowTelemetry.builder(window, "w").percentiles(95).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was 95.0");
    assertThatThrownBy(() -> WindowTelemetry.builder(window, "w").maximumKeys(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maximumKeys must be between 1 and 100000, but was 0");
    assertThatThrownBy(() -> WindowTelemetry.builder(window, "w").conventions(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("conventions");
    assertThatThrownBy(() -> WindowTelemetry.builder(window, "w").build().bindTo(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("meter");
  }

  private Map<String, MetricData> collect() {
    Collection<MetricData> all = reader.collectAllMetrics();
    Map<String, MetricData> byName = new HashMap<>();
    for (MetricData m : all) {
      if (!m.getData().getPoints().isEmpty()) {
        byName.put(m.getName(), m);
      }
    }
    return byName;
  }

  private static PointData point(Map<String, MetricData> metrics, String name, Attributes at) {
    assertThat(metrics).containsKey(name);
    return metrics.get(name).getData().getPoints().stream()
        .filter(p -> p.getAttributes().equals(at))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError(name + " has no point " + at + " in " + metrics.get(name)));
  }

  private static long longValue(Map<String, MetricData> metrics, String name, Attributes at) {
    return ((LongPointData) point(metrics, name, at)).getValue();
  }

  private static double doubleValue(Map<String, MetricData> metrics, String name, Attributes at) {
    return ((DoublePointData) point(metrics, name, at)).getValue();
  }

  private static Set<Attributes> attributesOf(Map<String, MetricData> metrics, String name) {
    return metrics.get(name).getData().getPoints().stream()
        .map(PointData::getAttributes)
        .collect(Collectors.toSet());
  }

  private static Set<String> keysOf(Map<String, MetricData> metrics, String name) {
    return attributesOf(metrics, name).stream()
        .map(a -> a.get(WINDOW_KEY))
        .collect(Collectors.toSet());
  }
}
