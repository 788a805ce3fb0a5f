package io.ringtail.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.NativeHistogramBuckets;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ExponentialBuckets;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The exported histograms against an exact model of the recorded samples. */
class WindowHistogramsTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder()
          .length(Duration.ofSeconds(10))
          .buckets(5)
          .cumulativeHistogram(true)
          .build();

  private static HistogramDataPointSnapshot onlyPoint(MetricSnapshots scrape) {
    assertThat(scrape.size()).isEqualTo(1);
    HistogramSnapshot metric = (HistogramSnapshot) scrape.get(0);
    assertThat(metric.getDataPoints()).hasSize(1);
    return metric.getDataPoints().get(0);
  }

  /** Latencies from 100 us to 20 s, log-uniform, with some exact zeros. */
  private static long latency(SplittableRandom random) {
    return random.nextInt(100) == 0
        ? 0
        : (long) Math.exp(random.nextDouble(Math.log(1e5), Math.log(2e10)));
  }

  @ParameterizedTest(name = "digits={0}")
  @ValueSource(ints = {1, 2, 3})
  void randomStream_classicBucketsHoldEachSampleAtOrAboveItsBound(int digits) {
    SplittableRandom random = new SplittableRandom(digits);
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow window =
        RollingWindow.create(CONFIG.toBuilder().significantDigits(digits).build(), time);
    WindowHistograms histograms = WindowHistograms.builder().window("checkout", window).build();
    List<Long> samples = new ArrayList<>();
    double sum = 0;
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 4_000; i++) {
        long v = latency(random);
        window.record(v);
        samples.add(v);
        sum += v;
        if (i % 100 == 0) {
          time.advance(Duration.ofSeconds(1)); // buckets rotate and leave the window
        }
      }
      HistogramDataPointSnapshot point = onlyPoint(histograms.collect());
      assertThat(point.getLabels().get("window")).isEqualTo("checkout");
      assertThat(point.getCount()).isEqualTo(samples.size());
      assertThat(point.getSum()).isCloseTo(sum * 1e-9, org.assertj.core.data.Offset.offset(1e-6));
      ClassicHistogramBuckets classic = point.getClassicBuckets();
      assertThat(classic.size()).isEqualTo(12);
      assertThat(classic.getUpperBound(11)).isEqualTo(Double.POSITIVE_INFINITY);
      double slack = 2 * Math.pow(10, -digits);
      long cumulative = 0;
      for (int b = 0; b < classic.size(); b++) {
        cumulative += classic.getCount(b);
        double bound = classic.getUpperBound(b);
        long atOrBelow = samples.stream().filter(v -> v * 1e-9 <= bound).count();
        long wellBelow = samples.stream().filter(v -> v * 1e-9 <= bound / (1 + slack)).count();
        // never counted below its bound; only a sample within one slot of a bound moves above it
        assertThat(cumulative).isBetween(wellBelow, atOrBelow);
      }
      assertThat(cumulative).isEqualTo(samples.size());
    }
  }

  @Test
  void nativeBuckets_areTheWindowsExponentialBucketsInPrometheusNumbering() {
    SplittableRandom random = new SplittableRandom(11);
    RollingWindow window = RollingWindow.create(CONFIG, new ManualTimeSource());
    for (int i = 0; i < 10_000; i++) {
      window.record(latency(random));
    }
    HistogramDataPointSnapshot point =
        onlyPoint(WindowHistograms.builder().window("w", window).build().collect());
    ExponentialBuckets expected =
        window.cumulativeHistogram().orElseThrow().exponentialBuckets(6, 1e-9);
    assertThat(point.hasNativeHistogramData()).isTrue();
    assertThat(point.getNativeSchema()).isEqualTo(6);
    assertThat(point.getNativeZeroCount()).isEqualTo(expected.zeroCount()).isPositive();
    NativeHistogramBuckets buckets = point.getNativeBucketsForPositiveValues();
    long total = point.getNativeZeroCount();
    int k = 0;
    for (int i = 0; i < expected.length(); i++) {
      if (expected.countAt(i) != 0) {
        assertThat(buckets.getBucketIndex(k)).isEqualTo(expected.offset() + i + 1);
        assertThat(buckets.getCount(k)).isEqualTo(expected.countAt(i));
        total += buckets.getCount(k++);
      }
    }
    assertThat(buckets.size()).isEqualTo(k);
    assertThat(total).isEqualTo(10_000);

    HistogramDataPointSnapshot coarse =
        onlyPoint(WindowHistograms.builder().window("w", window).nativeSchema(2).build().collect());
    assertThat(coarse.getNativeSchema()).isEqualTo(2);
    assertThat(coarse.getNativeBucketsForPositiveValues().size()).isLessThan(buckets.size());
    HistogramDataPointSnapshot classicOnly =
        onlyPoint(
            WindowHistograms.builder()
                .window("w", window)
                .nativeHistograms(false)
                .build()
                .collect());
    assertThat(classicOnly.hasNativeHistogramData()).isFalse();
    assertThat(classicOnly.getCount()).isEqualTo(10_000);
  }

  @Test
  void exemplars_appearInTheOpenMetricsOutput_inTheBucketsOfTheirValues() throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow window = RollingWindow.create(CONFIG, time);
    ExemplarReservoir exemplars = ExemplarReservoir.create(Duration.ofMinutes(1), time);
    long[] values = {3_000_000, 40_000_000, 41_000_000, 700_000_000};
    for (int i = 0; i < values.length; i++) {
      window.record(values[i]);
      exemplars.offer(values[i], "trace" + i, "span" + i);
    }
    PrometheusRegistry registry = new PrometheusRegistry();
    WindowHistograms.builder()
        .window("checkout", window, exemplars)
        .nativeHistograms(false)
        .build()
        .register(registry);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OpenMetricsTextFormatWriter.create().write(out, registry.scrape(), EscapingScheme.DEFAULT);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains("# TYPE ringtail_window_seconds histogram")
        .contains(
            "ringtail_window_seconds_bucket{window=\"checkout\",le=\"0.005\"} 1 # {span_id=\"span0\",trace_id=\"trace0\"} 0.003")
        // the slowest sample of its power of two: 41 ms, not 40 ms
        .contains(
            "ringtail_window_seconds_bucket{window=\"checkout\",le=\"0.05\"} 3 # {span_id=\"span2\",trace_id=\"trace2\"} 0.041")
        .contains(
            "ringtail_window_seconds_bucket{window=\"checkout\",le=\"1.0\"} 4 # {span_id=\"span3\",trace_id=\"trace3\"} 0.7")
        .contains("ringtail_window_seconds_count{window=\"checkout\"} 4");
    assertThatThrownBy(
            () -> WindowHistograms.builder().window("again", window).build().register(registry))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ringtail_window_seconds");
  }

  @Test
  void keyedWindows_exportEveryKey() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows routes = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    routes.record("/cart", 2_000_000);
    routes.record("/cart", 3_000_000);
    routes.record("/pay", 90_000_000);
    MetricSnapshots scrape = WindowHistograms.builder().keyed("routes", routes).build().collect();
    HistogramSnapshot metric = (HistogramSnapshot) scrape.get(0);
    assertThat(metric.getMetadata().getPrometheusName()).isEqualTo("ringtail_keyed_seconds");
    assertThat(metric.getDataPoints())
        .extracting(
            p -> p.getLabels().get("key") + "/" + p.getLabels().get("window") + "=" + p.getCount())
        .containsExactlyInAnyOrder("/cart/routes=2", "/pay/routes=1");
  }

  @Test
  void keyedWindows_withKeyLabels_exportEachKeysValuesAsLabels() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows endpoints = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    endpoints.record("GET /cart", 2_000_000);
    endpoints.record("GET /cart", 3_000_000);
    endpoints.record("POST /pay", 90_000_000);
    MetricSnapshots scrape =
        WindowHistograms.builder()
            .keyed(
                "http.server.requests",
                endpoints,
                key -> {
                  String[] parts = key.split(" ");
                  // a name Prometheus refuses is sanitized; a "window" is left to the window's
                  return Map.of("http.method", parts[0], "uri", parts[1], "window", "not this");
                })
            .build()
            .collect();
    HistogramSnapshot metric = (HistogramSnapshot) scrape.get(0);
    assertThat(metric.getMetadata().getPrometheusName()).isEqualTo("ringtail_keyed_seconds");
    assertThat(metric.getDataPoints())
        .extracting(
            p ->
                p.getLabels().get("http_method")
                    + " "
                    + p.getLabels().get("uri")
                    + " "
                    + p.getLabels().get("window")
                    + "="
                    + p.getCount()
                    + (p.getLabels().contains("key") ? " with key" : ""))
        .containsExactlyInAnyOrder(
            "GET /cart http.server.requests=2", "POST /pay http.server.requests=1");
  }

  @Test
  void otherUnits_areExportedScaled() {
    RollingWindow sizes = RollingWindow.create(CONFIG, new ManualTimeSource());
    sizes.record(1_500);
    sizes.record(70_000);
    MetricSnapshots scrape =
        WindowHistograms.builder()
            .window("body", sizes)
            .unit("bytes", 1)
            .classicBuckets(1_024, 65_536, 1_048_576)
            .build()
            .collect();
    HistogramSnapshot metric = (HistogramSnapshot) scrape.get(0);
    assertThat(metric.getMetadata().getPrometheusName()).isEqualTo("ringtail_window_bytes");
    ClassicHistogramBuckets classic = metric.getDataPoints().get(0).getClassicBuckets();
    assertThat(classic.getCount(0)).isZero();
    assertThat(classic.getCount(1)).isEqualTo(1);
    assertThat(classic.getCount(2)).isEqualTo(1);
    assertThat(metric.getDataPoints().get(0).getSum()).isEqualTo(71_500);
  }

  @Test
  void docsExample_exportsTheWindowWithItsExemplars() {
    PrometheusRegistry prometheusRegistry = new PrometheusRegistry();
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    String spanId = "00f067aa0ba902b7";
    long latencyNanos = 42_000_000;
    // docs:prometheus-histograms:start
    WindowConfig config = WindowConfig.builder().cumulativeHistogram(true).build();
    RollingWindow checkout = RollingWindow.create(config);
    ExemplarReservoir exemplars =
        ExemplarReservoir.create(Duration.ofMinutes(1), TimeSource.system());
    WindowHistograms.builder()
        .window("checkoutLatency", checkout, exemplars)
        .build()
        .register(prometheusRegistry);

    checkout.record(latencyNanos);
    exemplars.offer(latencyNanos, traceId, spanId); // optional: exemplars lead to the trace
    // docs:prometheus-histograms:end
    HistogramDataPointSnapshot point = onlyPoint(prometheusRegistry.scrape());
    assertThat(point.getCount()).isEqualTo(1);
    assertThat(point.getExemplars().size()).isEqualTo(1);
    assertThat(point.getExemplars().get(0).getValue()).isEqualTo(0.042);
  }

  @Test
  void badConfiguration_isRejectedClearly() {
    RollingWindow plain = RollingWindow.create(WindowConfig.defaults(), new ManualTimeSource());
    RollingWindow kept = RollingWindow.create(CONFIG, new ManualTimeSource());
    assertThatThrownBy(() -> WindowHistograms.builder().window("plain", plain).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"plain\"")
        .hasMessageContaining("cumulativeHistogram(true)");
    KeyedWindows plainKeyed = KeyedWindows.builder().build();
    assertThatThrownBy(() -> WindowHistograms.builder().keyed("k", plainKeyed).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cumulativeHistogram(true)");
    assertThatThrownBy(() -> WindowHistograms.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("add at least one window to export");
    assertThatThrownBy(() -> WindowHistograms.builder().window("a", kept).window("a", kept))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be unique among the windows added, but was \"a\"");
    assertThatThrownBy(() -> WindowHistograms.builder().window("", kept))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be non-empty, but was \"\"");
    assertThatThrownBy(() -> WindowHistograms.builder().window(null, kept))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> WindowHistograms.builder().classicBuckets(0.1, 0.05))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("upperBounds must be finite and ascending, but was [0.1, 0.05]");
    assertThatThrownBy(() -> WindowHistograms.builder().classicBuckets(0.1, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("upperBounds must be finite and ascending, but was [0.1, NaN]");
    assertThatThrownBy(() -> WindowHistograms.builder().nativeSchema(9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("nativeSchema must be between -4 and 8, but was 9");
    assertThatThrownBy(() -> WindowHistograms.builder().unit("Bytes", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit must be lower case letters, digits and underscores, but was \"Bytes\"");
    assertThatThrownBy(() -> WindowHistograms.builder().unit("bytes", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scale must be positive and finite, but was 0.0");
  }
}
