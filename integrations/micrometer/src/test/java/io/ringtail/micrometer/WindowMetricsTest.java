package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.CountingWindow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WindowMetricsTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(60).stripes(1).build();
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  private RollingWindow window() {
    return RollingWindow.create(CONFIG, time);
  }

  private static double gauge(MeterRegistry registry, String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  private static double seconds(MeterRegistry registry, String name, String... tags) {
    return registry.get(name).tags(tags).timeGauge().value(TimeUnit.SECONDS);
  }

  @Test
  void monitor_registersConventionalNamesTagsAndUnits() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = WindowMetrics.monitor(registry, window(), "checkout", "region", "eu");

    List<String> names =
        registry.getMeters().stream().map(m -> m.getId().getName()).distinct().sorted().toList();
    assertThat(names)
        .containsExactly(
            "ringtail.window.max",
            "ringtail.window.mean",
            "ringtail.window.min",
            "ringtail.window.percentile",
            "ringtail.window.recorded",
            "ringtail.window.recorded.sum",
            "ringtail.window.rejected",
            "ringtail.window.rejections",
            "ringtail.window.samples",
            "ringtail.window.sum");
    assertThat(registry.getMeters())
        .hasSize(12)
        .allSatisfy(
            m ->
                assertThat(m.getId().getTags())
                    .contains(Tag.of("window", "checkout"), Tag.of("region", "eu")));
    assertThat(registry.get("ringtail.window.percentile").gauges())
        .extracting(g -> g.getId().getTag("phi"))
        .containsExactlyInAnyOrder("0.5", "0.95", "0.99");
    Meter p95 = registry.get("ringtail.window.percentile").tag("phi", "0.95").meter();
    assertThat(p95).isInstanceOf(TimeGauge.class);
    assertThat(p95.getId().getBaseUnit()).isEqualTo("seconds");
    assertThat(registry.get("ringtail.window.samples").meter().getId().getBaseUnit()).isNull();
    assertThat(window).isNotNull();
  }

  @Test
  void counters_countEverythingSinceCreation_whileGaugesRoll() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = WindowMetrics.monitor(registry, window(), "checkout");
    for (int i = 1; i <= 10; i++) {
      window.record(ms(i));
    }
    window.record(-1);
    assertThat(counter(registry, "ringtail.window.recorded")).isEqualTo(10);
    assertThat(counter(registry, "ringtail.window.recorded.sum")).isCloseTo(0.055, within(1e-12));
    assertThat(counter(registry, "ringtail.window.rejections")).isEqualTo(1);
    assertThat(registry.get("ringtail.window.recorded.sum").functionCounter().getId().getBaseUnit())
        .isEqualTo("seconds");
    time.advance(Duration.ofMinutes(5));
    window.record(ms(100));
    assertThat(gauge(registry, "ringtail.window.samples")).isEqualTo(1);
    assertThat(counter(registry, "ringtail.window.recorded")).isEqualTo(11);
    assertThat(counter(registry, "ringtail.window.recorded.sum")).isCloseTo(0.155, within(1e-12));
    assertThat(counter(registry, "ringtail.window.rejections")).isEqualTo(1);
  }

  /**
   * One window's totals bound in two registries (as Spring binds every registry it has): meters of
   * one id in both, and each registry's counters keep their own scrape snapshot after collections.
   */
  @Test
  void meters_totalsAloneInTwoRegistries_eachKeepsReading() throws Exception {
    SimpleMeterRegistry first = new SimpleMeterRegistry();
    SimpleMeterRegistry second = new SimpleMeterRegistry();
    RollingWindow window = window();
    for (SimpleMeterRegistry r : List.of(first, second)) {
      WindowMetrics.builder(window, "checkout").meters(WindowMeters.TOTALS).build().bindTo(r);
    }
    for (int i = 1; i <= 7; i++) {
      window.record(ms(i));
    }
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(10); // a reference queue is processed by the collector's own thread
    }
    for (SimpleMeterRegistry r : List.of(first, second)) {
      assertThat(r.get("ringtail.window.recorded").functionCounter().count()).isEqualTo(7.0);
    }
  }

  /**
   * A binding of the totals alone registers the three counters and no gauge, and its counters keep
   * reading the window after collections (counters hold their object weakly, and no gauge holds the
   * scrape snapshot here); one of the statistics alone registers the gauges and no counter.
   */
  @Test
  void meters_totalsAlone_orStatisticsAlone() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = window();
    WindowMetrics.builder(window, "checkout").meters(WindowMeters.TOTALS).build().bindTo(registry);
    WindowMetrics.builder(window, "checkout")
        .prefix("ringtail.fleet.window")
        .meters(WindowMeters.STATISTICS)
        .build()
        .bindTo(registry);
    assertThat(registry.find("ringtail.window.samples").meters()).isEmpty();
    assertThat(registry.find("ringtail.window.percentile").meters()).isEmpty();
    assertThat(registry.find("ringtail.fleet.window.recorded").meters()).isEmpty();
    assertThat(registry.getMeters())
        .hasSize(3 + 6 + WindowConventions.defaults().percentiles().length);
    for (int i = 1; i <= 10; i++) {
      window.record(ms(i));
    }
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(10); // a reference queue is processed by the collector's own thread
    }
    assertThat(counter(registry, "ringtail.window.recorded")).isEqualTo(10);
    assertThat(gauge(registry, "ringtail.fleet.window.samples")).isEqualTo(10);
    assertThatThrownBy(() -> WindowMetrics.builder(window, "x").meters(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("meters");
  }

  @Test
  void counters_inNonTimeUnit_andNaNForAWindowWithoutTotals() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = window();
    WindowMetrics.builder(window, "payload").baseUnit("bytes").build().bindTo(registry);
    window.record(1500);
    assertThat(counter(registry, "ringtail.window.recorded.sum")).isEqualTo(1500);
    assertThat(registry.get("ringtail.window.recorded.sum").functionCounter().getId().getBaseUnit())
        .isEqualTo("bytes");

    SimpleMeterRegistry other = new SimpleMeterRegistry();
    WindowMetrics.monitor(
        other,
        new CountingWindow(window) {
          @Override
          public WindowSnapshot snapshot() {
            WindowSnapshot s = super.snapshot();
            return new WindowSnapshot() {
              public long count() {
                return s.count();
              }

              public long sum() {
                return s.sum();
              }

              public long rejected() {
                return s.rejected();
              }

              public double min() {
                return s.min();
              }

              public double max() {
                return s.max();
              }

              public double valueAtPercentile(double p) {
                return s.valueAtPercentile(p);
              }

              public long startNanos() {
                return s.startNanos();
              }

              public long endNanos() {
                return s.endNanos();
              }
            };
          }
        },
        "plain");
    assertThat(counter(other, "ringtail.window.recorded")).isNaN();
    assertThat(gauge(other, "ringtail.window.samples")).isEqualTo(1);
  }

  @Test
  void prometheus_namesCountersWithTotalSuffix_fromTheScrapesSnapshot() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CountingWindow window = new CountingWindow(window());
    WindowMetrics.monitor(registry, window, "checkout");
    window.record(ms(20));
    window.record(ms(30));
    String text = registry.scrape();
    assertThat(window.snapshots()).isEqualTo(1);
    assertThat(text)
        .contains("# TYPE ringtail_window_recorded_total counter")
        .contains("ringtail_window_recorded_total{window=\"checkout\"} 2.0")
        .contains("ringtail_window_recorded_sum_seconds_total{window=\"checkout\"} 0.05")
        .contains("ringtail_window_rejections_total{window=\"checkout\"} 0.0");
  }

  private static double counter(MeterRegistry registry, String name) {
    return registry.get(name).functionCounter().count();
  }

  @Test
  void gauges_readRollingValuesInBaseTimeUnit() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = WindowMetrics.monitor(registry, window(), "checkout");
    for (int i = 1; i <= 100; i++) {
      window.record(ms(i));
    }
    window.record(-1);

    assertThat(gauge(registry, "ringtail.window.samples")).isEqualTo(100);
    assertThat(gauge(registry, "ringtail.window.rejected")).isEqualTo(1);
    assertThat(seconds(registry, "ringtail.window.sum")).isCloseTo(5.050, within(1e-9));
    assertThat(seconds(registry, "ringtail.window.mean")).isCloseTo(0.0505, within(1e-9));
    assertThat(seconds(registry, "ringtail.window.min")).isCloseTo(0.001, within(1e-9));
    assertThat(seconds(registry, "ringtail.window.max")).isCloseTo(0.100, within(1e-9));
    assertThat(seconds(registry, "ringtail.window.percentile", "phi", "0.5"))
        .isCloseTo(0.050, within(0.0005));
    assertThat(seconds(registry, "ringtail.window.percentile", "phi", "0.95"))
        .isCloseTo(0.095, within(0.001));
    assertThat(seconds(registry, "ringtail.window.percentile", "phi", "0.99"))
        .isCloseTo(0.099, within(0.001));

    time.advance(Duration.ofSeconds(61));
    assertThat(gauge(registry, "ringtail.window.samples")).isZero();
    assertThat(seconds(registry, "ringtail.window.sum")).isZero();
    assertThat(seconds(registry, "ringtail.window.mean")).isNaN();
    assertThat(seconds(registry, "ringtail.window.max")).isNaN();
    assertThat(seconds(registry, "ringtail.window.percentile", "phi", "0.95")).isNaN();
  }

  @Test
  void gauges_holdWindowStrongly() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WindowMetrics.monitor(registry, window(), "unreferenced").record(ms(5));
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    assertThat(gauge(registry, "ringtail.window.samples")).isEqualTo(1);
    assertThat(seconds(registry, "ringtail.window.max")).isCloseTo(0.005, within(1e-9));
  }

  @Test
  void scrape_takesOneSnapshotForAllGauges() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountingWindow window = WindowMetrics.monitor(registry, new CountingWindow(window()), "w");
    window.record(ms(3));

    readAll(registry);
    assertThat(window.snapshots()).isEqualTo(1);
    readAll(registry);
    readAll(registry);
    assertThat(window.snapshots()).isEqualTo(3);
  }

  @Test
  void scrape_allGaugesReadTheSameSnapshot() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ShiftingWindow window = new ShiftingWindow(window());
    WindowMetrics.builder(window, "w")
        .percentiles(0.01, 0.5, 0.95, 0.99, 1.0)
        .build()
        .bindTo(registry);

    for (int scrape = 1; scrape <= 20; scrape++) {
      double samples = gauge(registry, "ringtail.window.samples");
      double max = seconds(registry, "ringtail.window.max");
      double p100 = seconds(registry, "ringtail.window.percentile", "phi", "1");
      double p99 = seconds(registry, "ringtail.window.percentile", "phi", "0.99");
      double p95 = seconds(registry, "ringtail.window.percentile", "phi", "0.95");
      double sum = seconds(registry, "ringtail.window.sum");
      double mean = seconds(registry, "ringtail.window.mean");
      double min = seconds(registry, "ringtail.window.min");
      seconds(registry, "ringtail.window.percentile", "phi", "0.5");
      seconds(registry, "ringtail.window.percentile", "phi", "0.01");
      gauge(registry, "ringtail.window.rejected");

      // snapshot k holds k samples of 1..k ms: every statistic must describe the same k
      assertThat(samples).isEqualTo(scrape);
      assertThat(max).isCloseTo(scrape / 1000.0, within(1e-9));
      assertThat(p100).isEqualTo(max);
      assertThat(sum).isCloseTo(scrape * (scrape + 1) / 2000.0, within(1e-9));
      assertThat(mean).isCloseTo(sum / samples, within(1e-12));
      assertThat(min).isCloseTo(0.001, within(1e-9));
      assertThat(p95).isLessThanOrEqualTo(p99);
      assertThat(p99).isLessThanOrEqualTo(max);
    }
    assertThat(window.snapshots()).isEqualTo(20);
  }

  @Test
  void scrape_partialReadsNeverServeSnapshotOlderThanMaxAge() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountingWindow window = new CountingWindow(window());
    WindowMetrics.builder(window, "w")
        .maxSnapshotAge(Duration.ofSeconds(1))
        .build()
        .bindTo(registry);
    window.record(ms(1));
    assertThat(gauge(registry, "ringtail.window.samples")).isEqualTo(1);

    window.record(ms(1));
    time.advance(Duration.ofMillis(500));
    assertThat(seconds(registry, "ringtail.window.max")).isCloseTo(0.001, within(1e-9));
    assertThat(window.snapshots()).isEqualTo(1);

    window.record(ms(2));
    time.advance(Duration.ofMillis(501));
    assertThat(seconds(registry, "ringtail.window.sum")).isCloseTo(0.004, within(1e-9));
    assertThat(window.snapshots()).isEqualTo(2);
  }

  @Test
  void bindTo_twoRegistriesKeepSeparateScrapes() {
    SimpleMeterRegistry a = new SimpleMeterRegistry();
    SimpleMeterRegistry b = new SimpleMeterRegistry();
    CountingWindow window = new CountingWindow(window());
    WindowMetrics metrics = WindowMetrics.builder(window, "w").build();
    metrics.bindTo(a);
    metrics.bindTo(b);
    window.record(ms(7));

    readAll(a);
    readAll(b);
    assertThat(window.snapshots()).isEqualTo(2);
    assertThat(seconds(b, "ringtail.window.max")).isCloseTo(0.007, within(1e-9));
  }

  @Test
  void timeUnit_convertsFromWindowUnit() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = window();
    WindowMetrics.builder(window, "micros")
        .timeUnit(TimeUnit.MICROSECONDS)
        .build()
        .bindTo(registry);
    window.record(250_000);
    assertThat(seconds(registry, "ringtail.window.max")).isCloseTo(0.25, within(1e-9));
    assertThat(registry.get("ringtail.window.max").timeGauge().value(TimeUnit.MILLISECONDS))
        .isCloseTo(250, within(1e-6));
  }

  @Test
  void baseUnit_publishesPlainGaugesWithThatUnit() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RollingWindow window = window();
    WindowMetrics.builder(window, "payload")
        .baseUnit("bytes")
        .percentiles(0.5)
        .prefix("app.payload")
        .tags("route", "/upload")
        .build()
        .bindTo(registry);
    window.record(1024);
    window.record(2048);
    Gauge max = registry.get("app.payload.max").tag("route", "/upload").gauge();
    assertThat(max).isNotInstanceOf(TimeGauge.class);
    assertThat(max.getId().getBaseUnit()).isEqualTo("bytes");
    assertThat(max.value()).isEqualTo(2048);
    assertThat(gauge(registry, "app.payload.sum")).isEqualTo(3072);
    assertThat(registry.get("app.payload.percentile").gauges()).hasSize(1);
  }

  @Test
  void maxSnapshotAge_beyondLongNanos_isRejectedNamingIt() {
    RollingWindow window = window();
    assertThatThrownBy(
            () ->
                WindowMetrics.builder(window, "w")
                    .maxSnapshotAge(Duration.ofSeconds(Long.MAX_VALUE))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxSnapshotAge must be within");
    assertThatThrownBy(
            () ->
                KeyedWindowMetrics.builder(Map.<String, RollingWindow>of(), "w")
                    .maxSnapshotAge(Duration.ofDays(365L * 300))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxSnapshotAge must be within");
  }

  @Test
  void builder_rejectsBadOptions() {
    RollingWindow window = window();
    assertThatThrownBy(() -> WindowMetrics.builder(window, "w").prefix("Ringtail.Window").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "prefix must be lowercase dot-separated words (like ringtail.window), but was \"Ringtail.Window\"");
    assertThatThrownBy(() -> WindowMetrics.builder(window, "w").percentiles(0.5, 95).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was 95.0");
    assertThatThrownBy(() -> WindowMetrics.builder(window, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be non-blank, but was \" \"");
    assertThatThrownBy(
            () -> WindowMetrics.builder(window, "w").maxSnapshotAge(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxSnapshotAge must be zero or positive, but was PT-1S");
    assertThatThrownBy(
            () -> WindowMetrics.builder(window, "w").baseUnit("bytes").timeUnit(TimeUnit.SECONDS))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () -> WindowMetrics.builder(window, "w").timeUnit(TimeUnit.SECONDS).baseUnit("bytes"))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void prometheusScrape_showsRollingValuesAndNaNWhenEmpty() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CountingWindow window =
        WindowMetrics.monitor(registry, new CountingWindow(window()), "checkout", "region", "eu");
    for (int i = 1; i <= 100; i++) {
      window.record(ms(i));
    }

    String text = registry.scrape();
    assertThat(window.snapshots()).isEqualTo(1);
    assertThat(text)
        .contains("ringtail_window_samples{region=\"eu\",window=\"checkout\"} 100")
        .contains("ringtail_window_sum_seconds{region=\"eu\",window=\"checkout\"} 5.05")
        .contains("ringtail_window_mean_seconds{region=\"eu\",window=\"checkout\"} 0.0505")
        .contains("ringtail_window_min_seconds{region=\"eu\",window=\"checkout\"} 0.001")
        .contains("ringtail_window_max_seconds{region=\"eu\",window=\"checkout\"} 0.1")
        .contains(
            "ringtail_window_percentile_seconds{phi=\"0.5\",region=\"eu\",window=\"checkout\"} 0.05")
        .contains(
            "ringtail_window_percentile_seconds{phi=\"0.95\",region=\"eu\",window=\"checkout\"} 0.095")
        .contains(
            "ringtail_window_percentile_seconds{phi=\"0.99\",region=\"eu\",window=\"checkout\"} 0.099");

    time.advance(Duration.ofSeconds(30));
    for (int i = 0; i < 100; i++) {
      window.record(ms(400));
    }
    text = registry.scrape();
    assertThat(window.snapshots()).isEqualTo(2);
    assertThat(text)
        .contains("ringtail_window_samples{region=\"eu\",window=\"checkout\"} 200")
        .contains(
            "ringtail_window_percentile_seconds{phi=\"0.95\",region=\"eu\",window=\"checkout\"} 0.4");

    time.advance(Duration.ofSeconds(61));
    text = registry.scrape();
    assertThat(text)
        .contains("ringtail_window_samples{region=\"eu\",window=\"checkout\"} 0")
        .contains("ringtail_window_sum_seconds{region=\"eu\",window=\"checkout\"} 0")
        .contains("ringtail_window_mean_seconds{region=\"eu\",window=\"checkout\"} NaN")
        .contains("ringtail_window_max_seconds{region=\"eu\",window=\"checkout\"} NaN")
        .contains(
            "ringtail_window_percentile_seconds{phi=\"0.95\",region=\"eu\",window=\"checkout\"} NaN");
  }

  @Test
  void prometheusScrape_plainAndKeyedWindowsCoexistUnderDefaultPrefixes() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WindowMetrics.monitor(registry, window(), "checkout").record(ms(10));
    WindowMetrics.monitor(registry, window(), "idle");
    java.util.Map<String, RollingWindow> perTool = new java.util.concurrent.ConcurrentHashMap<>();
    perTool.put("search", window());
    perTool.get("search").record(ms(20));
    KeyedWindowMetrics.monitor(registry, perTool, "tools");

    String text = registry.scrape();
    assertThat(text)
        .contains("ringtail_window_max_seconds{window=\"checkout\"} 0.01")
        .contains("ringtail_window_max_seconds{window=\"idle\"} NaN")
        .contains("ringtail_window_samples{window=\"idle\"} 0")
        .contains("ringtail_keyed_max_seconds{key=\"search\",window=\"tools\"} 0.02")
        .contains("ringtail_keyed_keys{window=\"tools\"} 1");
  }

  @Test
  void failingWindow_readsNaNForTheScrapeAndIsAskedOncePerScrape() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    java.util.concurrent.atomic.AtomicBoolean down =
        new java.util.concurrent.atomic.AtomicBoolean();
    CountingWindow window =
        new CountingWindow(window()) {
          @Override
          public WindowSnapshot snapshot() {
            WindowSnapshot s = super.snapshot();
            if (down.get()) {
              throw new IllegalStateException("backend down");
            }
            return s;
          }
        };
    WindowMetrics.monitor(registry, window, "remote").record(ms(80));
    down.set(true);

    String text = registry.scrape();
    assertThat(window.snapshots()).isEqualTo(1);
    assertThat(text)
        .contains("ringtail_window_samples{window=\"remote\"} NaN")
        .contains("ringtail_window_max_seconds{window=\"remote\"} NaN")
        .contains("ringtail_window_percentile_seconds{phi=\"0.99\",window=\"remote\"} NaN");

    down.set(false);
    text = registry.scrape();
    assertThat(window.snapshots()).isEqualTo(2);
    assertThat(text).contains("ringtail_window_max_seconds{window=\"remote\"} 0.08");
  }

  private static void readAll(MeterRegistry registry) {
    for (Meter m : registry.getMeters()) {
      m.measure().forEach(ms -> ms.getValue());
    }
  }

  /** A window that records one more sample (k ms for the k-th) each time it is snapshotted. */
  private static final class ShiftingWindow extends CountingWindow {
    ShiftingWindow(RollingWindow delegate) {
      super(delegate);
    }

    @Override
    public WindowSnapshot snapshot() {
      record(ms(snapshots() + 1));
      return super.snapshot();
    }
  }
}
