package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The code of the README, kept compiling and true. */
class MicrometerReadmeExampleTest {

  @Test
  void readmeExample_bindsAndAlerts() {
    ManualTimeSource time = new ManualTimeSource();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    List<String> pages = new ArrayList<>();

    // --- README: binding ---
    RollingWindow latency = WindowMetrics.monitor(registry,
        RollingWindow.create(WindowConfig.defaults(), time), "checkout", "region", "eu");

    // --- README: alert rule ---
    AlertRule slowCheckout = AlertRule.threshold("checkout-p95", latency, Measure.percentile(95))
        .above(TimeUnit.MILLISECONDS.toNanos(250))        // fire when P95 > 250 ms
        .resolveBelow(TimeUnit.MILLISECONDS.toNanos(200)) // resolve only under 200 ms
        .fireAfter(Duration.ofSeconds(30))                // ... sustained for 30 s
        .cooldown(Duration.ofMinutes(5))                  // then stay quiet for 5 min
        .minimumSamples(50)
        .build();
    AlertMonitor monitor = AlertMonitor.create(time)
        .add(slowCheckout)
        .addListener(event -> pages.add(event.type() + " " + event.rule().name()
            + " p95=" + event.snapshot().valueAtPercentile(95) / 1e6 + " ms"));
    // monitor.scheduleWith(yourScheduler, Duration.ofSeconds(10)); or monitor.evaluate() on demand
    // --- end ---

    for (int second = 0; second < 40; second++) {
      for (int i = 0; i < 10; i++) {
        latency.record(TimeUnit.MILLISECONDS.toNanos(400));
      }
      monitor.evaluate();
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(pages).containsExactly("FIRED checkout-p95 p95=400.0 ms");
    assertThat(registry.scrape())
        .contains("ringtail_window_percentile_seconds{phi=\"0.95\",region=\"eu\",window=\"checkout\"} 0.4");
  }
}
