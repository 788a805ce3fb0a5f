package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyedWindowMetrics}: one set of meters per key, bound to a map of windows or to {@link
 * KeyedWindows}.
 */
class KeyedWindowMetricsTest {
  /** Bound to a map of windows (a plain map or a Caffeine cache's view). */
  @Nested
  class OverAMap {
    private static final WindowConfig CONFIG =
        WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(6).stripes(1).build();
    private final ManualTimeSource time = new ManualTimeSource(5_000_000_000L);

    private RollingWindow window() {
      return RollingWindow.create(CONFIG, time);
    }

    private static double keys(MeterRegistry registry) {
      return registry.get("ringtail.keyed.keys").gauge().value();
    }

    private static long metersOf(MeterRegistry registry, String key) {
      return registry.getMeters().stream().filter(m -> key.equals(m.getId().getTag("key"))).count();
    }

    @Test
    void keys_getMetersAsTheyAppearAndLoseThemWhenRemoved() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      Map<String, RollingWindow> windows = new ConcurrentHashMap<>();
      windows.put("alice", window());
      KeyedWindowMetrics.monitor(registry, windows, "per-user", "service", "login");
      assertThat(metersOf(registry, "alice")).isEqualTo(12);

      windows.get("alice").record(TimeUnit.MILLISECONDS.toNanos(20));
      windows.put("bob", window());
      windows.get("bob").record(TimeUnit.MILLISECONDS.toNanos(30));
      assertThat(keys(registry)).isEqualTo(2);
      assertThat(metersOf(registry, "bob")).isEqualTo(12);
      RequiredSearch bobMax =
          registry
              .get("ringtail.keyed.max")
              .tags("key", "bob", "window", "per-user", "service", "login");
      assertThat(bobMax.timeGauge().value(TimeUnit.MILLISECONDS)).isCloseTo(30, within(1e-9));

      windows.remove("alice");
      assertThat(keys(registry)).isEqualTo(1);
      assertThat(metersOf(registry, "alice")).isZero();
      assertThat(metersOf(registry, "bob")).isEqualTo(12);
      assertThat(registry.get("ringtail.keyed.keys.bound").gauge().value()).isEqualTo(1);
    }

    @Test
    void replacedWindow_isRebound() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      Map<String, RollingWindow> windows = new ConcurrentHashMap<>();
      windows.put("k", window());
      windows.get("k").record(1000);
      KeyedWindowMetrics<String> metrics = KeyedWindowMetrics.monitor(registry, windows, "w");
      assertThat(registry.get("ringtail.keyed.samples").tag("key", "k").gauge().value())
          .isEqualTo(1);

      windows.put("k", window());
      metrics.refresh();
      assertThat(registry.get("ringtail.keyed.samples").tag("key", "k").gauge().value()).isZero();
      assertThat(metersOf(registry, "k")).isEqualTo(12);
    }

    @Test
    void caffeineEviction_removesMeters() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      Cache<Integer, RollingWindow> cache =
          Caffeine.newBuilder()
              .expireAfterAccess(Duration.ofSeconds(60))
              .ticker(time::nanoTime)
              .executor(Runnable::run)
              .build();
      KeyedWindowMetrics.builder(cache.asMap(), "per-ip")
          .keyFormatter(ip -> "10.0.0." + ip)
          .keyTag("ip")
          .build()
          .bindTo(registry);
      for (int ip = 1; ip <= 3; ip++) {
        cache.get(ip, k -> window()).record(100);
      }
      assertThat(keys(registry)).isEqualTo(3);
      assertThat(registry.find("ringtail.keyed.samples").tag("ip", "10.0.0.2").gauge()).isNotNull();

      time.advance(Duration.ofSeconds(40));
      cache.getIfPresent(2).record(100);
      time.advance(Duration.ofSeconds(30));
      cache.cleanUp();
      assertThat(keys(registry)).isEqualTo(1);
      assertThat(registry.find("ringtail.keyed.samples").tag("ip", "10.0.0.1").gauge()).isNull();
      assertThat(registry.find("ringtail.keyed.samples").tag("ip", "10.0.0.3").gauge()).isNull();
      assertThat(registry.get("ringtail.keyed.samples").tag("ip", "10.0.0.2").gauge().value())
          .isEqualTo(1);
    }

    @Test
    void meterCount_staysBoundedUnderKeyChurn() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      Map<Integer, RollingWindow> windows = new ConcurrentHashMap<>();
      KeyedWindowMetrics.builder(windows, "churn")
          .maximumKeys(10)
          .percentiles(0.99)
          .build()
          .bindTo(registry);
      int perKey = 10; // 6 gauges, 1 percentile, 3 counters
      SplittableRandom random = new SplittableRandom(6);
      for (int step = 0; step < 2_000; step++) {
        int key = random.nextInt(1_000);
        if (random.nextInt(3) == 0) {
          windows.remove(key);
        } else {
          windows.computeIfAbsent(key, k -> window());
        }
        if (step % 10 == 0) {
          keys(registry);
          long bound =
              registry.getMeters().stream().filter(m -> m.getId().getTag("key") != null).count();
          assertThat(bound).isLessThanOrEqualTo(10L * perKey);
          assertThat(bound).isEqualTo(Math.min(10, windows.size()) * (long) perKey);
          assertThat(registry.getMeters()).hasSizeLessThanOrEqualTo(2 + 10 * perKey);
          registry.getMeters().stream()
              .map(m -> m.getId().getTag("key"))
              .filter(k -> k != null)
              .forEach(k -> assertThat(windows).containsKey(Integer.valueOf(k)));
        }
      }
      windows.clear();
      keys(registry);
      assertThat(registry.getMeters()).hasSize(2);
    }

    @Test
    void prometheusScrape_showsKeysAndDropsEvictedOnes() {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Map<String, RollingWindow> windows = new ConcurrentHashMap<>();
      KeyedWindowMetrics.monitor(registry, windows, "tool");
      windows.put("search", window());
      windows.get("search").record(TimeUnit.MILLISECONDS.toNanos(120));

      String first = registry.scrape();
      String second = registry.scrape();
      assertThat(second)
          .contains(
              "ringtail_keyed_percentile_seconds{key=\"search\",phi=\"0.95\",window=\"tool\"} 0.12");
      assertThat(second).contains("ringtail_keyed_keys{window=\"tool\"} 1");
      assertThat(first).contains("ringtail_keyed_keys{window=\"tool\"} 1");

      windows.remove("search");
      registry.scrape();
      String after = registry.scrape();
      assertThat(after)
          .doesNotContain("key=\"search\"")
          .contains("ringtail_keyed_keys{window=\"tool\"} 0");
    }

    @Test
    void builder_rejectsBadOptions() {
      Map<String, RollingWindow> windows = Map.of();
      assertThatThrownBy(() -> KeyedWindowMetrics.builder(windows, "w").maximumKeys(0).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maximumKeys must be between 1 and 100000, but was 0");
      assertThatThrownBy(() -> KeyedWindowMetrics.builder(windows, "w").keyTag("phi").build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("keyTag must be a non-blank tag other than window and phi, but was \"phi\"");
    }
  }

  /** Bound to the in-process {@link KeyedWindows}. */
  @Nested
  class OverKeyedWindows {
    private final ManualTimeSource time = new ManualTimeSource(9_000_000_000L);
    private final KeyedWindows keyed =
        KeyedWindows.builder()
            .window(
                WindowConfig.builder()
                    .length(Duration.ofSeconds(60))
                    .buckets(12)
                    .stripes(1)
                    .build())
            .maximumKeys(50)
            .timeSource(time)
            .build();

    private static long ms(long millis) {
      return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void prometheusScrape_showsPerKeyValuesAndDropsExpiredKeys() {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      KeyedWindowMetrics.builder(keyed, "tool").keyTag("tool").build().bindTo(registry);
      for (int i = 1; i <= 100; i++) {
        keyed.record("search", ms(i));
      }
      keyed.record("fetch", ms(700));

      registry.scrape();
      String text = registry.scrape();
      assertThat(text)
          .contains("ringtail_keyed_keys{window=\"tool\"} 2")
          .contains("ringtail_keyed_samples{tool=\"search\",window=\"tool\"} 100")
          .contains(
              "ringtail_keyed_percentile_seconds{phi=\"0.95\",tool=\"search\",window=\"tool\"} 0.095")
          .contains("ringtail_keyed_max_seconds{tool=\"fetch\",window=\"tool\"} 0.7");

      time.advance(Duration.ofSeconds(45));
      keyed.record("fetch", ms(300));
      time.advance(Duration.ofSeconds(30));
      registry.scrape();
      text = registry.scrape();
      assertThat(text)
          .contains("ringtail_keyed_keys{window=\"tool\"} 1")
          .contains("ringtail_keyed_max_seconds{tool=\"fetch\",window=\"tool\"} 0.3")
          .doesNotContain("tool=\"search\"");
    }

    @Test
    void scrape_takesAboutOneSnapshotPerKey() {
      CountingKeyed counting = new CountingKeyed(keyed);
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      KeyedWindowMetrics.monitor(registry, counting, "tool");
      for (int k = 0; k < 10; k++) {
        keyed.record("key" + k, ms(k + 1));
      }
      registry.scrape();
      for (int scrape = 1; scrape <= 5; scrape++) {
        counting.listings.set(0);
        counting.single.set(0);
        keyed.record("key7", ms(100 * scrape));
        String text = registry.scrape();
        assertThat(text)
            .contains("ringtail_keyed_max_seconds{key=\"key7\",window=\"tool\"} 0." + scrape);
        assertThat(counting.listings.get()).isEqualTo(1);
        // the Prometheus registry reads P.keys first: the listing's snapshots serve every key
        assertThat(counting.single.get()).isZero();
      }
    }

    @Test
    void listingSnapshots_areNotServedOnceOlderThanMaxAge() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      CountingKeyed counting = new CountingKeyed(keyed);
      KeyedWindowMetrics<String> metrics = KeyedWindowMetrics.builder(counting, "w").build();
      metrics.bindTo(registry);
      keyed.record("a", ms(10));
      metrics.refresh();
      keyed.record("a", ms(20));
      time.advance(Duration.ofMillis(1001));
      assertThat(registry.get("ringtail.keyed.max").timeGauge().value(TimeUnit.MILLISECONDS))
          .isCloseTo(20, within(0.2));
      assertThat(counting.single.get()).isEqualTo(1);
    }

    @Test
    void keysBeyondMaximum_waitForRoom() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      KeyedWindowMetrics<String> metrics =
          KeyedWindowMetrics.builder(keyed, "w").maximumKeys(3).build();
      metrics.bindTo(registry);
      for (int k = 0; k < 5; k++) {
        keyed.record("k" + k, 1000);
      }
      metrics.refresh();
      assertThat(registry.get("ringtail.keyed.keys").gauge().value()).isEqualTo(5);
      assertThat(registry.get("ringtail.keyed.keys.bound").gauge().value()).isEqualTo(3);
      assertThat(registry.get("ringtail.keyed.samples").gauges())
          .hasSize(3)
          .allSatisfy(g -> assertThat(g.value()).isEqualTo(1));
      assertThat(registry.get("ringtail.keyed.max").timeGauge().value(TimeUnit.NANOSECONDS))
          .isCloseTo(1000, within(10.0));
    }

    @Test
    void pastTheMaximum_theBusiestKeysHaveMeters_asInTheOpenTelemetryBinding() {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      KeyedWindowMetrics<String> metrics =
          KeyedWindowMetrics.builder(keyed, "w").maximumKeys(2).build();
      metrics.bindTo(registry);
      for (int k = 0; k < 5; k++) {
        for (int i = 0; i <= k; i++) {
          keyed.record("k" + k, 1000);
        }
      }
      metrics.refresh();
      assertThat(registry.get("ringtail.keyed.keys.bound").gauge().value()).isEqualTo(2);
      assertThat(registry.get("ringtail.keyed.samples").gauges())
          .extracting(g -> g.getId().getTag("key"), g -> g.value())
          .containsExactlyInAnyOrder(tuple("k4", 5.0), tuple("k3", 4.0));

      for (int i = 0; i < 10; i++) {
        keyed.record("k0", 1000);
      }
      metrics.refresh();
      assertThat(registry.get("ringtail.keyed.samples").gauges())
          .extracting(g -> g.getId().getTag("key"))
          .containsExactlyInAnyOrder("k0", "k4");
    }

    /** Counts listing and single-key snapshots. */
    private static final class CountingKeyed implements KeyedWindows {
      private final KeyedWindows delegate;
      final AtomicInteger listings = new AtomicInteger();
      final AtomicInteger single = new AtomicInteger();

      CountingKeyed(KeyedWindows delegate) {
        this.delegate = delegate;
      }

      @Override
      public void record(String key, long value) {
        delegate.record(key, value);
      }

      @Override
      public void recordAt(String key, long value, long timeNanos) {
        delegate.recordAt(key, value, timeNanos);
      }

      @Override
      public long estimatedKeys() {
        return delegate.estimatedKeys();
      }

      @Override
      public long footprintBytes() {
        return delegate.footprintBytes();
      }

      @Override
      public WindowConfig windowConfig() {
        return delegate.windowConfig();
      }

      @Override
      public TimeSource timeSource() {
        return delegate.timeSource();
      }

      @Override
      public WindowSnapshot snapshot(String key) {
        single.incrementAndGet();
        return delegate.snapshot(key);
      }

      @Override
      public Map<String, WindowSnapshot> snapshots() {
        listings.incrementAndGet();
        return delegate.snapshots();
      }
    }
  }
}
