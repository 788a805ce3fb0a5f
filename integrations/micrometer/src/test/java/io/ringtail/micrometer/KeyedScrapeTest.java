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

  @Test
  void keysAppearingOnManyThreads_duringScrapes_allGetTheirMeters() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KeyedWindowMetrics.builder(keyed, "tenants").maximumKeys(1_000).build().bindTo(registry);
    int threads = 4;
    int keysPerThread = 100;
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread scraper =
        new Thread(
            () -> {
              while (!done.get()) {
                registry.scrape();
              }
            });
    scraper.start();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.List<java.util.concurrent.Future<?>> futures = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        futures.add(
            pool.submit(
                () -> {
                  for (int k = 0; k < keysPerThread; k++) {
                    keyed.record("t" + id + "-k" + k, 1_000_000);
                    keyed.record("t" + id + "-k" + k, 2_000_000);
                  }
                }));
      }
      for (java.util.concurrent.Future<?> f : futures) {
        f.get();
      }
    } finally {
      done.set(true);
      scraper.join();
      pool.shutdownNow();
    }
    // a scrape that overlapped a key's registration read some of its gauges; past maxSnapshotAge
    // (1 s) the next one takes a fresh snapshot for every gauge
    time.advance(Duration.ofSeconds(2));
    String scrape = registry.scrape();
    assertThat(scrape)
        .contains(
            "ringtail_keyed_keys_bound{window=\"tenants\"} " + threads * keysPerThread + ".0");
    for (int t = 0; t < threads; t++) {
      for (int k = 0; k < keysPerThread; k++) {
        assertThat(scrape)
            .contains(
                "ringtail_keyed_recorded_total{key=\"t"
                    + t
                    + "-k"
                    + k
                    + "\",window=\"tenants\"} 2.0");
      }
    }
    assertThat(registry.find("ringtail.keyed.samples").gauges()).hasSize(threads * keysPerThread);
  }
}
