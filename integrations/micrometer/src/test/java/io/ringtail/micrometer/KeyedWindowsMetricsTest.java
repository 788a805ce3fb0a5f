package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Binding the in-process {@link KeyedWindows}. */
class KeyedWindowsMetricsTest {
  private final ManualTimeSource time = new ManualTimeSource(9_000_000_000L);
  private final KeyedWindows keyed = KeyedWindows.builder()
      .window(WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).stripes(1).build())
      .maximumKeys(50)
      .timeSource(time)
      .build();

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  @Test
  public void prometheusScrape_showsPerKeyValuesAndDropsExpiredKeys() {
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
        .contains("ringtail_keyed_percentile_seconds{phi=\"0.95\",tool=\"search\",window=\"tool\"} 0.095")
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
  public void scrape_takesAboutOneSnapshotPerKey() {
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
      assertThat(text).contains("ringtail_keyed_max_seconds{key=\"key7\",window=\"tool\"} 0." + scrape);
      assertThat(counting.listings.get()).isEqualTo(1);
      // the Prometheus registry reads P.keys first: the listing's snapshots serve every key
      assertThat(counting.single.get()).isZero();
    }
  }

  @Test
  public void listingSnapshots_areNotServedOnceOlderThanMaxAge() {
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
  public void keysBeyondMaximum_waitForRoom() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KeyedWindowMetrics<String> metrics = KeyedWindowMetrics.builder(keyed, "w").maximumKeys(3).build();
    metrics.bindTo(registry);
    for (int k = 0; k < 5; k++) {
      keyed.record("k" + k, 1000);
    }
    metrics.refresh();
    assertThat(registry.get("ringtail.keyed.keys").gauge().value()).isEqualTo(5);
    assertThat(registry.get("ringtail.keyed.keys.bound").gauge().value()).isEqualTo(3);
    assertThat(registry.get("ringtail.keyed.samples").gauges()).hasSize(3)
        .allSatisfy(g -> assertThat(g.value()).isEqualTo(1));
    assertThat(registry.get("ringtail.keyed.max").timeGauge().value(TimeUnit.NANOSECONDS))
        .isCloseTo(1000, within(10.0));
  }

  /** Counts listing and single-key snapshots. */
  private static final class CountingKeyed implements KeyedWindows {
    private final KeyedWindows delegate;
    final AtomicInteger listings = new AtomicInteger();
    final AtomicInteger single = new AtomicInteger();

    CountingKeyed(KeyedWindows delegate) {
      this.delegate = delegate;
    }

    @Override public void record(String key, long value) { delegate.record(key, value); }
    @Override public void recordAt(String key, long value, long timeNanos) { delegate.recordAt(key, value, timeNanos); }
    @Override public long estimatedKeys() { return delegate.estimatedKeys(); }
    @Override public long footprintBytes() { return delegate.footprintBytes(); }
    @Override public WindowConfig windowConfig() { return delegate.windowConfig(); }
    @Override public TimeSource timeSource() { return delegate.timeSource(); }

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
