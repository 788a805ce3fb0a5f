package io.ringtail.opentelemetry;

import static io.ringtail.opentelemetry.WindowTelemetry.WINDOW_KEY;
import static io.ringtail.opentelemetry.WindowTelemetry.WINDOW_NAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.time.TestClock;
import io.ringtail.CumulativeHistogram;
import io.ringtail.ExponentialBuckets;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.testkit.CountingWindow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WindowHistogramProducerTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder()
          .length(Duration.ofSeconds(60))
          .buckets(12)
          .stripes(1)
          .cumulativeHistogram(true)
          .build();
  private static final WindowConfig NO_HISTOGRAM =
      CONFIG.toBuilder().cumulativeHistogram(false).build();
  private final ManualTimeSource time = new ManualTimeSource(5_000_000_001_234L);
  private final TestClock clock = TestClock.create(Instant.parse("2026-12-04T06:00:00Z"));
  private InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final List<SdkMeterProvider> providers = new ArrayList<>();

  @AfterEach
  void close() {
    providers.forEach(SdkMeterProvider::close);
  }

  @Test
  void docsExample_registersTheProducer() {
    // docs:opentelemetry-histogram:start
    WindowConfig config = WindowConfig.builder().cumulativeHistogram(true).build();
    RollingWindow checkout = RollingWindow.create(config);
    KeyedWindows perTenant = KeyedWindows.builder().window(config).build();
    WindowHistogramProducer producer =
        WindowHistogramProducer.builder()
            .window("checkout", checkout)
            .keyed("per-tenant", perTenant)
            .build();
    SdkMeterProvider meterProvider =
        SdkMeterProvider.builder()
            .registerMetricReader(reader) // or a periodic reader with an OTLP exporter
            .registerMetricProducer(producer)
            .build();
    // docs:opentelemetry-histogram:end
    providers.add(meterProvider);
    checkout.record(2_000_000);
    perTenant.record("tenant-a", 3_000_000);
    Map<String, MetricData> metrics = collect();
    assertThat(metrics)
        .containsOnlyKeys(
            WindowHistogramProducer.WINDOW_METRIC, WindowHistogramProducer.KEYED_METRIC);
    assertThat(points(metrics, WindowHistogramProducer.WINDOW_METRIC))
        .singleElement()
        .satisfies(p -> assertThat(p.getCount()).isEqualTo(1));
    assertThat(points(metrics, WindowHistogramProducer.KEYED_METRIC))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.getAttributes())
                    .isEqualTo(Attributes.of(WINDOW_NAME, "per-tenant", WINDOW_KEY, "tenant-a")));
  }

  @Test
  void randomStreams_pointsAreTheWindowsBucketsAndCountEverySample() {
    for (int digits = 1; digits <= 3; digits++) {
      SplittableRandom random = new SplittableRandom(1_068 + digits);
      RollingWindow window =
          RollingWindow.create(CONFIG.toBuilder().significantDigits(digits).build(), time);
      Attributes extra = Attributes.of(AttributeKey.stringKey("service.name"), "shop");
      register(
          WindowHistogramProducer.builder()
              .window("checkout", window)
              .attributes(extra)
              .clock(clock)
              .build());
      int scale = ExponentialBuckets.scaleFor(digits);
      List<Long> samples = new ArrayList<>();
      ExponentialHistogramPointData previous = null;
      for (int round = 0; round < 25; round++) {
        for (int i = random.nextInt(300); i > 0; i--) {
          long v = sample(random);
          window.record(v);
          if (v >= 0 && v <= CONFIG.highestTrackableValue()) {
            samples.add(v);
          }
        }
        time.advance(Duration.ofMillis(random.nextLong(0, 40_000)));
        clock.advance(Duration.ofSeconds(1));
        ExponentialHistogramPointData p =
            onlyPoint(collect(), WindowHistogramProducer.WINDOW_METRIC);
        CumulativeHistogram h = window.cumulativeHistogram().orElseThrow(); // same injected time
        ExponentialBuckets expected = h.exponentialBuckets(scale, 1e-9);

        assertThat(p.getAttributes())
            .isEqualTo(extra.toBuilder().put(WINDOW_NAME, "checkout").build());
        assertThat(p.getScale()).isEqualTo(scale);
        assertThat(p.getPositiveBuckets().getScale()).isEqualTo(scale);
        assertThat(p.getZeroCount()).isEqualTo(expected.zeroCount());
        assertThat(p.getPositiveBuckets().getOffset()).isEqualTo(expected.offset());
        assertThat(p.getPositiveBuckets().getBucketCounts()).isEqualTo(countsOf(expected));
        assertThat(p.getNegativeBuckets().getTotalCount()).isZero();
        assertThat(p.hasMin()).isFalse();
        assertThat(p.hasMax()).isFalse();
        // the exact model: every accepted sample since creation, long after the window forgot it
        assertThat(p.getCount()).isEqualTo(samples.size()).isEqualTo(h.totals().count());
        assertThat(p.getSum()).isEqualTo(samples.stream().mapToLong(Long::longValue).sum() * 1e-9);
        assertThat(p.getZeroCount()).isEqualTo(samples.stream().filter(v -> v == 0).count());
        assertWithinOneBucketAbove(p, samples);
        if (previous != null) {
          assertIncludes(p, previous);
        }
        previous = p;
      }
      close();
      providers.clear();
    }
  }

  @Test
  void secondCollection_includesTheFirstsSamples_withTheSameStart() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    time.advance(Duration.ofMillis(7_300));
    register(WindowHistogramProducer.builder().window("checkout", window).clock(clock).build());
    long built = clock.now();
    window.record(1_500_000);
    window.record(0);
    window.record(80_000_000);
    ExponentialHistogramPointData first =
        onlyPoint(collect(), WindowHistogramProducer.WINDOW_METRIC);

    time.advance(Duration.ofMinutes(5)); // the rolling window forgets all three
    clock.advance(Duration.ofMinutes(5));
    window.record(1_500_000);
    window.record(3_000_000_000L);
    ExponentialHistogramPointData second =
        onlyPoint(collect(), WindowHistogramProducer.WINDOW_METRIC);

    assertThat(window.snapshot().count()).isEqualTo(2);
    assertThat(first.getCount()).isEqualTo(3);
    assertThat(second.getCount()).isEqualTo(5);
    assertThat(second.getZeroCount()).isEqualTo(1);
    assertThat(second.getSum()).isEqualTo(3_083_000_000L * 1e-9);
    assertIncludes(second, first);
    assertThat(bucketCounts(second).values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(4);
    // the window's creation on the wall clock: built 7.3 s after it, less the bucket's start
    long bucketWidth = Duration.ofSeconds(5).toNanos();
    long created = 5_000_000_001_234L;
    long origin = created - Math.floorMod(created, bucketWidth);
    long startEpoch = built - (created + Duration.ofMillis(7_300).toNanos() - origin);
    assertThat(first.getStartEpochNanos()).isEqualTo(startEpoch);
    assertThat(second.getStartEpochNanos()).isEqualTo(startEpoch);
    assertThat(first.getEpochNanos()).isEqualTo(built);
    assertThat(second.getEpochNanos()).isEqualTo(clock.now());
  }

  @Test
  void metric_isACumulativeExponentialHistogramInSeconds() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    window.record(1_000);
    register(WindowHistogramProducer.builder().window("checkout", window).build());
    MetricData m = collect().get(WindowHistogramProducer.WINDOW_METRIC);
    assertThat(m.getName()).isEqualTo("ringtail.window.distribution");
    assertThat(m.getType()).isEqualTo(MetricDataType.EXPONENTIAL_HISTOGRAM);
    assertThat(m.getExponentialHistogramData().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.CUMULATIVE);
    assertThat(m.getUnit()).isEqualTo("s");
    assertThat(m.getInstrumentationScopeInfo().getName()).isEqualTo("io.ringtail");
    assertThat(m.getDescription()).isNotBlank();
  }

  @Test
  void keyedCollection_onePointPerKey_equalToItsWindow() {
    KeyedWindows keyed = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    register(WindowHistogramProducer.builder().keyed("per-user", keyed).clock(clock).build());
    assertThat(collect()).isEmpty();
    SplittableRandom random = new SplittableRandom(68);
    Map<String, List<Long>> model = new TreeMap<>();
    for (int round = 0; round < 10; round++) {
      for (int i = random.nextInt(200); i > 0; i--) {
        String key = "user" + random.nextInt(5);
        long v = sample(random);
        keyed.record(key, v);
        if (v >= 0) {
          model.computeIfAbsent(key, k -> new ArrayList<>()).add(v);
        }
      }
      time.advance(Duration.ofMillis(random.nextLong(0, 10_000)));
      List<ExponentialHistogramPointData> points =
          points(collect(), WindowHistogramProducer.KEYED_METRIC);
      Map<String, CumulativeHistogram> histograms = keyed.cumulativeHistograms();
      assertThat(points).hasSize(model.size());
      for (ExponentialHistogramPointData p : points) {
        String key = p.getAttributes().get(WINDOW_KEY);
        assertThat(p.getAttributes())
            .isEqualTo(Attributes.of(WINDOW_NAME, "per-user", WINDOW_KEY, key));
        ExponentialBuckets expected =
            histograms.get(key).exponentialBuckets(ExponentialBuckets.scaleFor(2), 1e-9);
        assertThat(p.getScale()).isEqualTo(expected.scale());
        assertThat(p.getZeroCount()).isEqualTo(expected.zeroCount());
        assertThat(p.getPositiveBuckets().getOffset()).isEqualTo(expected.offset());
        assertThat(p.getPositiveBuckets().getBucketCounts()).isEqualTo(countsOf(expected));
        assertThat(p.getCount()).isEqualTo(model.get(key).size());
        assertThat(p.getSum())
            .isEqualTo(model.get(key).stream().mapToLong(Long::longValue).sum() * 1e-9);
      }
    }
  }

  @Test
  void keyedCollection_aKeyThatComesBack_startsAgainWithANewStart() {
    KeyedWindows keyed = KeyedWindows.builder().window(CONFIG).timeSource(time).build();
    register(WindowHistogramProducer.builder().keyed("per-user", keyed).clock(clock).build());
    keyed.record("alice", 1_000);
    keyed.record("alice", 2_000);
    keyed.record("bob", 3_000);
    Map<String, ExponentialHistogramPointData> first = byKey(collect());
    assertThat(first).containsOnlyKeys("alice", "bob");

    time.advance(Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(10));
    keyed.record("bob", 4_000);
    Map<String, ExponentialHistogramPointData> second = byKey(collect());
    assertThat(second.get("bob").getCount()).isEqualTo(2);
    assertThat(second.get("bob").getStartEpochNanos())
        .isEqualTo(first.get("bob").getStartEpochNanos());

    time.advance(Duration.ofSeconds(70)); // alice idle for longer than her window: dropped
    clock.advance(Duration.ofSeconds(70));
    keyed.record("alice", 5_000);
    Map<String, ExponentialHistogramPointData> third = byKey(collect());
    assertThat(third).containsOnlyKeys("alice");
    assertThat(third.get("alice").getCount()).isEqualTo(1);
    assertThat(third.get("alice").getStartEpochNanos())
        .isGreaterThan(first.get("alice").getStartEpochNanos())
        .isLessThanOrEqualTo(clock.now());
  }

  @Test
  void scaleOverride_andNonDurationUnit() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    for (long v = 1; v <= 5_000; v += 7) {
      window.record(v);
    }
    register(
        WindowHistogramProducer.builder().window("payload", window).scale(-2).unit("By").build());
    MetricData m = collect().get(WindowHistogramProducer.WINDOW_METRIC);
    ExponentialHistogramPointData p = onlyPoint(Map.of(m.getName(), m), m.getName());
    ExponentialBuckets expected =
        window.cumulativeHistogram().orElseThrow().exponentialBuckets(-2, 1);
    assertThat(m.getUnit()).isEqualTo("By");
    assertThat(p.getScale()).isEqualTo(-2);
    assertThat(p.getPositiveBuckets().getOffset()).isEqualTo(expected.offset()).isEqualTo(-1);
    assertThat(p.getPositiveBuckets().getBucketCounts()).isEqualTo(countsOf(expected));
    assertThat(p.getSum()).isEqualTo(1_787_500.0); // 1 + 8 + ... + 4999, 715 terms
    assertThat(p.getCount()).isEqualTo(715);
  }

  @Test
  void timeUnit_scalesToSeconds() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    window.record(250); // milliseconds
    register(
        WindowHistogramProducer.builder()
            .window("checkout", window)
            .timeUnit(TimeUnit.MILLISECONDS)
            .build());
    ExponentialHistogramPointData p = onlyPoint(collect(), WindowHistogramProducer.WINDOW_METRIC);
    assertThat(p.getSum()).isEqualTo(0.25);
    assertThat(p.getPositiveBuckets().getBucketCounts()).containsExactly(1L);
    assertThat(p.getPositiveBuckets().getOffset())
        .isEqualTo(
            window
                .cumulativeHistogram()
                .orElseThrow()
                .exponentialBuckets(ExponentialBuckets.scaleFor(2), 1e-3)
                .offset());
  }

  @Test
  void failingWindow_reportsNothing_andOthersStillReport() {
    RollingWindow healthy = RollingWindow.create(CONFIG, time);
    healthy.record(10);
    RollingWindow failing =
        new CountingWindow(RollingWindow.create(CONFIG, time)) {
          private int calls;

          @Override
          public Optional<CumulativeHistogram> cumulativeHistogram() {
            if (calls++ > 0) {
              throw new IllegalStateException("broken after build");
            }
            return healthy.cumulativeHistogram();
          }
        };
    register(
        WindowHistogramProducer.builder()
            .window("broken", failing)
            .window("healthy", healthy)
            .build());
    assertThat(points(collect(), WindowHistogramProducer.WINDOW_METRIC))
        .extracting(p -> p.getAttributes().get(WINDOW_NAME))
        .containsExactly("healthy");
  }

  @Test
  void build_rejectsAWindowWithoutCumulativeHistogram_naming() {
    RollingWindow plain = RollingWindow.create(NO_HISTOGRAM, time);
    assertThatThrownBy(
            () ->
                WindowHistogramProducer.builder()
                    .window("ok", RollingWindow.create(CONFIG, time))
                    .window("checkout", plain)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"checkout\"")
        .hasMessageContaining("WindowConfig.Builder#cumulativeHistogram(true)");
    KeyedWindows keyed = KeyedWindows.builder().window(NO_HISTOGRAM).timeSource(time).build();
    assertThatThrownBy(() -> WindowHistogramProducer.builder().keyed("per-user", keyed).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"per-user\"")
        .hasMessageContaining("WindowConfig.Builder#cumulativeHistogram(true)");
    assertThatThrownBy(() -> WindowHistogramProducer.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no window");
  }

  @Test
  void builder_rejectsBadArgumentsByName() {
    RollingWindow window = RollingWindow.create(CONFIG, time);
    WindowHistogramProducer.Builder b = WindowHistogramProducer.builder();
    assertThatThrownBy(() -> b.window(null, window))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
    assertThatThrownBy(() -> b.window("w", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("window");
    assertThatThrownBy(() -> b.keyed(null, KeyedWindows.builder().build()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
    assertThatThrownBy(() -> b.keyed("k", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keyed");
    assertThatThrownBy(() -> b.window(" ", window))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be non-blank, but was \" \"");
    b.window("w", window);
    assertThatThrownBy(() -> b.window("w", window))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be unique among this producer's windows, but was \"w\"");
    WindowHistogramProducer.Builder withKeyed =
        WindowHistogramProducer.builder().keyed("k", KeyedWindows.builder().build());
    assertThatThrownBy(() -> withKeyed.keyed("k", KeyedWindows.builder().build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be unique among this producer's keyed collections, but was \"k\"");
    assertThatThrownBy(() -> b.scale(21))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scale must be between -10 and 20, but was 21");
    assertThatThrownBy(() -> b.scale(-11))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scale must be between -10 and 20, but was -11");
    assertThatThrownBy(() -> b.unit(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit must be non-blank, but was \" \"");
    assertThatThrownBy(() -> b.unit(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("unit");
    assertThatThrownBy(() -> b.timeUnit(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("timeUnit");
    assertThatThrownBy(() -> b.attributes(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("attributes");
    assertThatThrownBy(() -> b.clock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clock");
    // the extremes are accepted, and the builder still builds after the rejections
    Collection<MetricData> produced = b.scale(-10).scale(20).build().produce(Resource.empty());
    assertThat(produced)
        .singleElement()
        .satisfies(m -> assertThat(m.getResource()).isEqualTo(Resource.empty()));
    ExponentialHistogramPointData p =
        produced.iterator().next().getExponentialHistogramData().getPoints().iterator().next();
    assertThat(p.getScale()).isEqualTo(20);
    assertThat(p.getCount()).isZero(); // no sample yet: a point of zero, the window exists
  }

  /** Mostly latencies from 1 µs to 5 s, some zeros, some out of range (rejected). */
  private static long sample(SplittableRandom random) {
    int kind = random.nextInt(40);
    if (kind == 0) {
      return 0;
    }
    if (kind == 1) {
      return -1;
    }
    if (kind == 2) {
      return random.nextLong(1, 1_000); // the slots of single nanoseconds
    }
    // log-uniform: every octave gets samples
    return (long) Math.exp(random.nextDouble(Math.log(1_000), Math.log(5e9)));
  }

  /**
   * Each sample counts in its own bucket or the next one up: for every bucket i, the exported
   * counts up to i are at most the exact counts up to i, and at least those up to i - 1.
   */
  private static void assertWithinOneBucketAbove(
      ExponentialHistogramPointData p, List<Long> samples) {
    int scale = p.getScale();
    TreeMap<Integer, Long> exact = new TreeMap<>();
    for (long v : samples) {
      if (v > 0) {
        exact.merge(indexOf(v * 1e-9, scale), 1L, Long::sum);
      }
    }
    TreeMap<Integer, Long> exported = bucketCounts(p);
    if (exact.isEmpty() || exported.isEmpty()) {
      assertThat(exported).isEqualTo(exact);
      return;
    }
    int from = Math.min(exact.firstKey(), exported.firstKey()) - 1;
    int to = Math.max(exact.lastKey(), exported.lastKey()) + 1;
    long exactBelow = 0; // exact counts up to i - 1
    long exactUpTo = 0;
    long exportedUpTo = 0;
    for (int i = from; i <= to; i++) {
      exactBelow = exactUpTo;
      exactUpTo += exact.getOrDefault(i, 0L);
      exportedUpTo += exported.getOrDefault(i, 0L);
      assertThat(exportedUpTo).as("bucket %d", i).isBetween(exactBelow, exactUpTo);
    }
  }

  /** OpenTelemetry's bucket of {@code v > 0}: {@code base^i < v <= base^(i+1)}. */
  private static int indexOf(double v, int scale) {
    int i = (int) Math.floor(Math.log(v) / Math.log(2) * Math.pow(2, scale));
    while (Math.pow(2, (i + 1) / Math.pow(2, scale)) < v) {
      i++;
    }
    while (Math.pow(2, i / Math.pow(2, scale)) >= v) {
      i--;
    }
    return i;
  }

  /** Every bucket of {@code earlier} has at most the count of the same bucket of {@code later}. */
  private static void assertIncludes(
      ExponentialHistogramPointData later, ExponentialHistogramPointData earlier) {
    assertThat(later.getStartEpochNanos()).isEqualTo(earlier.getStartEpochNanos());
    assertThat(later.getCount()).isGreaterThanOrEqualTo(earlier.getCount());
    assertThat(later.getZeroCount()).isGreaterThanOrEqualTo(earlier.getZeroCount());
    assertThat(later.getSum()).isGreaterThanOrEqualTo(earlier.getSum());
    TreeMap<Integer, Long> now = bucketCounts(later);
    bucketCounts(earlier)
        .forEach(
            (i, c) ->
                assertThat(now.getOrDefault(i, 0L)).as("bucket %d", i).isGreaterThanOrEqualTo(c));
  }

  private static TreeMap<Integer, Long> bucketCounts(ExponentialHistogramPointData p) {
    TreeMap<Integer, Long> out = new TreeMap<>();
    List<Long> counts = p.getPositiveBuckets().getBucketCounts();
    for (int i = 0; i < counts.size(); i++) {
      if (counts.get(i) != 0) {
        out.put(p.getPositiveBuckets().getOffset() + i, counts.get(i));
      }
    }
    return out;
  }

  private static List<Long> countsOf(ExponentialBuckets b) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < b.length(); i++) {
      out.add(b.countAt(i));
    }
    return out;
  }

  private void register(WindowHistogramProducer producer) {
    reader = InMemoryMetricReader.create();
    providers.add(
        SdkMeterProvider.builder()
            .registerMetricReader(reader)
            .registerMetricProducer(producer)
            .build());
  }

  private Map<String, MetricData> collect() {
    Map<String, MetricData> byName = new HashMap<>();
    for (MetricData m : reader.collectAllMetrics()) {
      assertThat(byName.put(m.getName(), m)).as("metric %s twice", m.getName()).isNull();
    }
    return byName;
  }

  private static List<ExponentialHistogramPointData> points(
      Map<String, MetricData> metrics, String name) {
    assertThat(metrics).containsKey(name);
    return new ArrayList<>(metrics.get(name).getExponentialHistogramData().getPoints());
  }

  private static ExponentialHistogramPointData onlyPoint(
      Map<String, MetricData> metrics, String name) {
    List<ExponentialHistogramPointData> points = points(metrics, name);
    assertThat(points).hasSize(1);
    return points.get(0);
  }

  private static Map<String, ExponentialHistogramPointData> byKey(Map<String, MetricData> metrics) {
    Map<String, ExponentialHistogramPointData> out = new HashMap<>();
    for (ExponentialHistogramPointData p : points(metrics, WindowHistogramProducer.KEYED_METRIC)) {
      assertThat(out.put(p.getAttributes().get(WINDOW_KEY), p)).isNull();
    }
    return out;
  }
}
