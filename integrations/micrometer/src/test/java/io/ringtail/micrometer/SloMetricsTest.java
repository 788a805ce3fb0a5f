package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SloMetricsTest {
  static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .availability("available", 0.999)
          .build();

  private final ManualTimeSource time = new ManualTimeSource(-77_000_000_000L);

  @Test
  void meters_carryTheStatus_underPrometheusNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ServiceLevel slo =
        SloMetrics.monitor(registry, ServiceLevel.inProcess(CONFIG, time), "app", "shop");
    // an hour of 1,000 events a minute; the last 10 minutes all slow and 10 % failed
    for (int minute = 0; minute < 60; minute++) {
      for (int i = 0; i < 1000; i++) {
        boolean fault = minute >= 50;
        slo.record(fault ? 400_000_000 : 100_000_000, fault && i % 10 == 0);
        time.advanceNanos(60_000_000);
      }
    }
    ObjectiveStatus fast = slo.status().objective("fast");
    assertThat(fast.recorded().total()).isEqualTo(60_000);
    assertThat(fast.recorded().good()).isEqualTo(50_000);
    assertThat(fast.firing())
        .extracting(a -> a.alert().name())
        .containsExactly("page-1h", "page-6h", "ticket-3d");

    String text = registry.scrape();
    String fastTags = "app=\"shop\",objective=\"fast\",slo=\"checkout\"";
    assertThat(text)
        .contains("ringtail_slo_events_total{" + fastTags + "} 60000.0")
        .contains("ringtail_slo_good_events_total{" + fastTags + "} 50000.0")
        .contains(
            "ringtail_slo_good_events_total{app=\"shop\",objective=\"available\",slo=\"checkout\"} 59000.0")
        .contains("ringtail_slo_target{" + fastTags + "} 0.99")
        .contains(
            "ringtail_slo_alert_firing{alert=\"page-1h\",app=\"shop\",objective=\"fast\",severity=\"page\",slo=\"checkout\"} 1.0")
        .contains(
            "ringtail_slo_alert_firing{alert=\"ticket-3d\",app=\"shop\",objective=\"fast\",severity=\"ticket\",slo=\"checkout\"} 1.0")
        .contains(
            "ringtail_slo_alert_firing{alert=\"page-6h\",app=\"shop\",objective=\"fast\",severity=\"page\",slo=\"checkout\"} 1.0");
    for (String window : new String[] {"5m", "30m", "1h", "6h", "3d", "30d"}) {
      assertThat(text)
          .contains("ringtail_slo_burn_rate{" + fastTags + ",window=\"" + window + "\"}");
    }
    double budget =
        registry.get("ringtail.slo.budget.remaining").tag("objective", "fast").gauge().value();
    assertThat(budget)
        .isCloseTo(fast.budgetRemaining(), within(1e-12))
        .isCloseTo(1 - 100.0 / 6, within(1e-9));
    assertThat(registry.get("ringtail.slo.sli").tag("objective", "fast").gauge().value())
        .isEqualTo(fast.sli())
        .isCloseTo(5.0 / 6, within(1e-12));
    assertThat(
            registry
                .get("ringtail.slo.burn.rate")
                .tag("objective", "available")
                .tag("window", "1h")
                .gauge()
                .value())
        .isCloseTo(slo.status().objective("available").burnRate(Duration.ofHours(1)), within(1e-9));
  }

  @Test
  void theDocsLine_bindsEveryMeter() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ServiceLevelConfig checkout = CONFIG;
    // docs:slo-meters:start
    ServiceLevel slo =
        SloMetrics.monitor(registry, ServiceLevel.inProcess(checkout), "application", "shop");
    // docs:slo-meters:end
    slo.record(1, false);
    assertThat(registry.scrape())
        .contains(
            "ringtail_slo_good_events_total{application=\"shop\",objective=\"available\",slo=\"checkout\"} 1.0");
    assertThat(registry.getMeters()).hasSize(2 * 14);
  }

  @Test
  void oneScrape_readsOneStatus_forEveryMeter() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Counting slo = new Counting(ServiceLevel.inProcess(CONFIG, time));
    SloMetrics.monitor(registry, slo);
    slo.record(1, false);
    int meters = registry.getMeters().size();
    // per objective: 2 counters, sli, target, budget, 6 burn rates, 3 alerts
    assertThat(meters).isEqualTo(2 * 14);

    for (Meter m : registry.getMeters()) {
      m.measure().forEach(measurement -> measurement.getValue());
    }
    assertThat(slo.statuses.get()).isEqualTo(1);
    for (Meter m : registry.getMeters()) {
      m.measure().forEach(measurement -> measurement.getValue());
    }
    assertThat(slo.statuses.get()).isEqualTo(2);
  }

  @Test
  void aFailingServiceLevel_readsNaN_andRecovers() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Counting slo = new Counting(ServiceLevel.inProcess(CONFIG, time));
    SloMetrics.monitor(registry, slo);
    slo.record(1, false);
    slo.failing.set(true);
    assertThat(registry.get("ringtail.slo.sli").tag("objective", "fast").gauge().value()).isNaN();
    assertThat(
            registry.get("ringtail.slo.events").tag("objective", "fast").functionCounter().count())
        .isNaN();
    slo.failing.set(false);
    time.advance(Duration.ofSeconds(2));
    assertThat(registry.get("ringtail.slo.sli").tag("objective", "fast").gauge().value())
        .isEqualTo(1.0);
  }

  @Test
  void badArguments_areRefused() {
    assertThatThrownBy(() -> SloMetrics.of(null)).hasMessage("serviceLevel");
    ServiceLevel slo = ServiceLevel.inProcess(CONFIG, time);
    assertThatThrownBy(() -> SloMetrics.of(slo, "odd"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SloMetrics.of(slo).bindTo(null)).hasMessage("registry");
  }

  /** A service level that counts its status reads, and may fail them. */
  static final class Counting implements ServiceLevel {
    final ServiceLevel delegate;
    final AtomicInteger statuses = new AtomicInteger();
    final AtomicBoolean failing = new AtomicBoolean();

    Counting(ServiceLevel delegate) {
      this.delegate = delegate;
    }

    @Override
    public void record(long latencyNanos, boolean failed) {
      delegate.record(latencyNanos, failed);
    }

    @Override
    public void recordAt(long latencyNanos, boolean failed, long timeNanos) {
      delegate.recordAt(latencyNanos, failed, timeNanos);
    }

    @Override
    public ServiceLevelStatus status() {
      statuses.incrementAndGet();
      if (failing.get()) {
        throw new IllegalStateException("store down");
      }
      return delegate.status();
    }

    @Override
    public ServiceLevelConfig config() {
      return delegate.config();
    }

    @Override
    public TimeSource timeSource() {
      return delegate.timeSource();
    }

    @Override
    public long footprintBytes() {
      return delegate.footprintBytes();
    }
  }
}
