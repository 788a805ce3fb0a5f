package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Scrapes racing recording threads and key churn. */
class MetricsStressTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000L);

  private RollingWindow window() {
    return RollingWindow.create(
        WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).stripes(2).build(), time);
  }

  private static double read(MeterRegistry r, String name, String phi) {
    return phi == null ? r.get(name).gauge().value() : r.get(name).tag("phi", phi).gauge().value();
  }

  @Test
  void scrapesRacingWriters_alwaysSeeOneConsistentSnapshot() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // serialised so every snapshot is internally consistent: this test is about the binder
    // (StripedWindow's own snapshots can be inconsistent while writers race a rotation)
    RollingWindow window = new SerializedWindow(window());
    WindowMetrics.builder(window, "w")
        .baseUnit("units")
        .percentiles(0.5, 0.95, 0.99)
        .build()
        .bindTo(registry);
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int seed = t;
        writers.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  // values rise over time, so gauges read from different snapshots would disagree
                  for (long i = 1; !done.get(); i++) {
                    window.record(i * 10 + random.nextInt(10));
                  }
                }));
      }
      Callable<Integer> scraper =
          () -> {
            for (int scrape = 0; scrape < 20_000; scrape++) {
              // read high to low while values rise: gauges reading different snapshots would
              // disagree
              double max = read(registry, "ringtail.window.max", null);
              double p99 = read(registry, "ringtail.window.percentile", "0.99");
              double p95 = read(registry, "ringtail.window.percentile", "0.95");
              double p50 = read(registry, "ringtail.window.percentile", "0.5");
              double min = read(registry, "ringtail.window.min", null);
              double mean = read(registry, "ringtail.window.mean", null);
              double sum = read(registry, "ringtail.window.sum", null);
              double samples = read(registry, "ringtail.window.samples", null);
              // a scrape shorter than maxSnapshotAge (1 s) never straddles a refresh; buckets
              // rotate and the age limit expires between scrapes
              time.advance(Duration.ofMillis(300));
              if (samples == 0) {
                continue;
              }
              // within one snapshot: mean is sum / count and percentiles are ordered within [min,
              // max]
              assertThat(mean).isEqualTo(sum / samples);
              assertThat(min).isLessThanOrEqualTo(p50);
              assertThat(p50).isLessThanOrEqualTo(p95);
              assertThat(p95).isLessThanOrEqualTo(p99);
              assertThat(p99).isLessThanOrEqualTo(max);
              assertThat(mean).isBetween(min, max);
            }
            return 0;
          };
      Future<Integer> scrapes = pool.submit(scraper);
      scrapes.get(120, TimeUnit.SECONDS);
      done.set(true);
      for (Future<?> w : writers) {
        w.get(30, TimeUnit.SECONDS);
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
  }

  @Test
  void keyChurnRacingScrapes_leavesExactlyTheLiveKeysBound() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Map<String, RollingWindow> windows = new ConcurrentHashMap<>();
    KeyedWindowMetrics<String> metrics =
        KeyedWindowMetrics.builder(windows, "churn").maximumKeys(1_000).percentiles(0.95).build();
    metrics.bindTo(registry);
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int seed = t;
        tasks.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  for (int i = 0; i < 50_000; i++) {
                    String key = "k" + random.nextInt(200);
                    if (random.nextBoolean()) {
                      windows.computeIfAbsent(key, k -> window()).record(i);
                    } else {
                      windows.remove(key);
                    }
                  }
                }));
      }
      for (int t = 0; t < 2; t++) {
        boolean viaGauge = t == 0;
        tasks.add(
            pool.submit(
                () -> {
                  while (!done.get()) {
                    if (viaGauge) {
                      registry.get("ringtail.keyed.keys").gauge().value();
                      registry.getMeters().forEach(m -> m.measure().forEach(ms -> ms.getValue()));
                    } else {
                      metrics.refresh();
                    }
                  }
                }));
      }
      tasks.get(0).get(120, TimeUnit.SECONDS);
      tasks.get(1).get(120, TimeUnit.SECONDS);
      done.set(true);
      for (Future<?> f : tasks) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
    metrics.refresh();
    Set<String> boundKeys =
        registry.getMeters().stream()
            .map(m -> m.getId().getTag("key"))
            .filter(k -> k != null)
            .collect(Collectors.toSet());
    assertThat(boundKeys).isEqualTo(windows.keySet());
    assertThat(registry.getMeters()).hasSize(2 + windows.size() * 10);
    for (String key : windows.keySet()) {
      assertThat(registry.get("ringtail.keyed.samples").tag("key", key).gauge().value())
          .isEqualTo(windows.get(key).snapshot().count());
    }
  }

  /** A window whose record and snapshot exclude each other. */
  private static final class SerializedWindow implements RollingWindow {
    private final RollingWindow delegate;

    SerializedWindow(RollingWindow delegate) {
      this.delegate = delegate;
    }

    @Override
    public synchronized void record(long value) {
      delegate.record(value);
    }

    @Override
    public synchronized void recordAt(long value, long timeNanos) {
      delegate.recordAt(value, timeNanos);
    }

    @Override
    public synchronized io.ringtail.WindowSnapshot snapshot() {
      return delegate.snapshot();
    }

    @Override
    public Duration length() {
      return delegate.length();
    }

    @Override
    public io.ringtail.TimeSource timeSource() {
      return delegate.timeSource();
    }

    @Override
    public long footprintBytes() {
      return delegate.footprintBytes();
    }
  }
}
