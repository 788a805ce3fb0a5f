package io.ringtail.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.exporter.prometheus.PrometheusHttpServer;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What Prometheus scrapes from OpenTelemetry's own Prometheus exporter: the series names and labels
 * the Micrometer binding gives (window, key, phi as a fraction), so the PromQL of the docs selects
 * them whichever binding exports.
 */
class PrometheusNamesTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final WindowConfig config =
      WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).build();

  @Test
  void exportedSeries_carryTheMicrometerBindingsNamesAndLabels() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    PrometheusHttpServer server =
        PrometheusHttpServer.builder().setHost("127.0.0.1").setPort(port).build();
    try (SdkMeterProvider provider =
        SdkMeterProvider.builder().registerMetricReader(server).build()) {
      Meter meter = provider.get("io.ringtail");
      RollingWindow checkout = RollingWindow.create(config, time);
      KeyedWindows tenants = KeyedWindows.builder().window(config).timeSource(time).build();
      for (int i = 1; i <= 100; i++) {
        checkout.record(i * 1_000_000L);
      }
      tenants.record("acme", 5_000_000);
      WindowTelemetry.observe(meter, checkout, "checkout");
      WindowTelemetry.observe(meter, tenants, "tenants");

      String text = scrape(port);
      assertThat(text)
          .containsPattern(
              "ringtail_window_percentile_seconds\\{[^}]*phi=\"0\\.95\"[^}]*window=\"checkout\"[^}]*\\} 0\\.095")
          .containsPattern(
              "ringtail_window_recorded_total\\{[^}]*window=\"checkout\"[^}]*\\} 100\\.0")
          .containsPattern(
              "ringtail_window_recorded_sum_seconds_total\\{[^}]*window=\"checkout\"[^}]*\\} 5\\.05")
          .containsPattern("ringtail_window_samples\\{[^}]*window=\"checkout\"[^}]*\\} 100")
          .containsPattern(
              "ringtail_keyed_samples\\{[^}]*key=\"acme\"[^}]*window=\"tenants\"[^}]*\\} 1")
          .doesNotContain("ringtail_window_name")
          .doesNotContain("ringtail_percentile");
    } finally {
      server.close();
    }
  }

  @Test
  void distribution_isScrapedAsAHistogramOfTheWindowsSamples() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    PrometheusHttpServer server =
        PrometheusHttpServer.builder().setHost("127.0.0.1").setPort(port).build();
    RollingWindow checkout =
        RollingWindow.create(config.toBuilder().cumulativeHistogram(true).build(), time);
    for (int i = 1; i <= 100; i++) {
      checkout.record(i * 1_000_000L);
    }
    SdkMeterProvider provider =
        SdkMeterProvider.builder()
            .registerMetricReader(server)
            .registerMetricProducer(
                WindowHistogramProducer.builder().window("checkout", checkout).build())
            .build();
    try {
      // the text format shows a native histogram's count and sum (its buckets need protobuf)
      assertThat(scrape(port))
          .contains("# TYPE ringtail_window_distribution_seconds histogram")
          .containsPattern(
              "ringtail_window_distribution_seconds_count\\{[^}]*window=\"checkout\"[^}]*\\} 100\n")
          .containsPattern(
              "ringtail_window_distribution_seconds_sum\\{[^}]*window=\"checkout\"[^}]*\\} 5\\.05");
    } finally {
      provider.close();
    }
  }

  private static String scrape(int port) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
