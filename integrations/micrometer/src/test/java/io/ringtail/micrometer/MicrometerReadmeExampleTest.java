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
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The code of the Micrometer and alerts page, verbatim between the docs markers, kept compiling and
 * true.
 */
class MicrometerReadmeExampleTest {

  @Test
  void readmeExample_bindsAndAlerts() {
    ManualTimeSource time = new ManualTimeSource();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    List<String> pages = new ArrayList<>();

    RollingWindow latency =
        WindowMetrics.monitor(
            registry,
            RollingWindow.create(WindowConfig.defaults(), time),
            "checkout",
            "region",
            "eu");

    // docs:alert-rule:start
    AlertRule slowCheckout =
        AlertRule.threshold("checkout-p95", latency, Measure.percentile(95))
            .above(TimeUnit.MILLISECONDS.toNanos(250)) // fire when P95 > 250 ms
            .resolveBelow(TimeUnit.MILLISECONDS.toNanos(200)) // resolve only under 200 ms
            .fireAfter(Duration.ofSeconds(30)) // ... sustained for 30 s
            .cooldown(Duration.ofMinutes(5)) // then stay quiet for 5 min
            .minimumSamples(50)
            .build();
    AlertMonitor monitor =
        AlertMonitor.create(time)
            .add(slowCheckout)
            .addListener(
                event ->
                    pages.add(
                        event.type()
                            + " "
                            + event.rule().name()
                            + " p95="
                            + event.snapshot().valueAtPercentile(95) / 1e6
                            + " ms"));
    // monitor.scheduleWith(yourScheduler, Duration.ofSeconds(10)); or monitor.evaluate() on demand
    // docs:alert-rule:end

    for (int second = 0; second < 40; second++) {
      for (int i = 0; i < 10; i++) {
        latency.record(TimeUnit.MILLISECONDS.toNanos(400));
      }
      monitor.evaluate();
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(pages).containsExactly("FIRED checkout-p95 p95=400.0 ms");
    assertThat(registry.scrape())
        .contains(
            "ringtail_window_percentile_seconds{phi=\"0.95\",region=\"eu\",window=\"checkout\"} 0.4");
  }

  @Test
  void pageSnippet_monitorInOneLine() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // docs:micrometer-monitor:start
    RollingWindow latency =
        WindowMetrics.monitor(
            registry, RollingWindow.create(WindowConfig.defaults()), "checkout", "region", "eu");
    // docs:micrometer-monitor:end
    latency.record(TimeUnit.MILLISECONDS.toNanos(300));
    assertThat(registry.scrape())
        .contains("ringtail_window_samples{region=\"eu\",window=\"checkout\"} 1.0")
        .contains("ringtail_window_max_seconds{region=\"eu\",window=\"checkout\"} 0.3");
  }

  @Test
  void pageSnippet_builder() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    window.record(250_000); // 250 ms in microseconds
    // docs:micrometer-builder:start
    WindowMetrics.builder(window, "checkout")
        .tags("region", "eu") // extra tags on every meter
        .percentiles(0.5, 0.95, 0.99, 0.999) // Micrometer-style fractions; default 0.5, 0.95, 0.99
        .timeUnit(TimeUnit.MICROSECONDS) // unit the window records in; default NANOSECONDS
        // .baseUnit("bytes") // or: values are not durations
        .prefix("ringtail.window") // default
        .maxSnapshotAge(Duration.ofSeconds(1)) // default, see "One scrape, one snapshot"
        .build()
        .bindTo(registry);
    // docs:micrometer-builder:end
    assertThat(registry.scrape())
        .contains("ringtail_window_max_seconds{region=\"eu\",window=\"checkout\"} 0.25")
        .contains("phi=\"0.999\"");
  }

  @Test
  void pageSnippet_keyedWindows() {
    ManualTimeSource time = new ManualTimeSource();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Map<String, RollingWindow> windowsByEndpoint = new ConcurrentHashMap<>();
    windowsByEndpoint.put("GET /orders", RollingWindow.create(WindowConfig.defaults(), time));
    windowsByEndpoint.get("GET /orders").record(1_000_000);
    // docs:micrometer-keyed:start
    KeyedWindows perTool = KeyedWindows.builder().timeSource(time).build();
    KeyedWindowMetrics.builder(perTool, "tool-latency")
        .keyTag("tool")
        .maximumKeys(200)
        .prefix("ringtail.tool") // tag keys differ from the default binding's: another name
        .build()
        .bindTo(registry);
    // or any live Map<K, RollingWindow> (a Caffeine asMap(), a ConcurrentHashMap):
    KeyedWindowMetrics.monitor(registry, windowsByEndpoint, "endpoint-latency");
    // docs:micrometer-keyed:end
    perTool.record("whois", 2_000_000);
    registry.scrape(); // the first scrape binds the new key's meters
    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("ringtail_tool_samples{tool=\"whois\",window=\"tool-latency\"} 1.0")
        .contains("ringtail_keyed_samples{key=\"GET /orders\",window=\"endpoint-latency\"} 1.0");
  }
}
