package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A key recorded between two scrapes shows in the second, not the third. */
class KeyedScrapeTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final KeyedWindows keyed =
      KeyedWindows.builder()
          .window(WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build())
          .timeSource(time)
          .build();

  @Test
  void aNewKey_showsInTheNextScrape() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KeyedWindowMetrics.monitor(registry, keyed, "tenants");
    assertThat(registry.scrape()).contains("ringtail_keyed_keys_bound{window=\"tenants\"} 0.0");

    keyed.record("tenant-1", 5_000_000);
    assertThat(registry.scrape())
        .contains("ringtail_keyed_keys_bound{window=\"tenants\"} 1.0")
        .contains("ringtail_keyed_samples{key=\"tenant-1\",window=\"tenants\"} 1.0");

    keyed.record("tenant-2", 7_000_000);
    assertThat(registry.scrape())
        .contains("ringtail_keyed_samples{key=\"tenant-1\",window=\"tenants\"} 1.0")
        .contains("ringtail_keyed_samples{key=\"tenant-2\",window=\"tenants\"} 1.0");
  }

  @Test
  void aKeyThatEmptiesWithinOneScrapeInterval_isStillSeenOnce() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KeyedWindowMetrics.monitor(registry, keyed, "tenants");
    keyed.record("seed", 1);
    registry.scrape();
    time.advance(Duration.ofSeconds(11));
    keyed.record("short-lived", 3_000_000);
    assertThat(registry.scrape())
        .contains("ringtail_keyed_recorded_total{key=\"short-lived\",window=\"tenants\"} 1.0")
        .doesNotContain("key=\"seed\"");
  }
}
