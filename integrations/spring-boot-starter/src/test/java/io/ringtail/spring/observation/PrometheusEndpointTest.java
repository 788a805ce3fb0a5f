package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** One small web application on a random port: what Prometheus scrapes from Actuator. */
class PrometheusEndpointTest {

  @SpringBootApplication
  static class App {
    @Bean
    RollingWindow checkout() {
      return RollingWindow.create(WindowConfig.builder().length(Duration.ofMinutes(1)).build());
    }

    @Bean
    RollingWindow payment() {
      return RollingWindow.create(WindowConfig.builder().cumulativeHistogram(true).build());
    }

    @Bean
    KeyedWindows routes() {
      return KeyedWindows.builder()
          .window(WindowConfig.builder().cumulativeHistogram(true).build())
          .build();
    }
  }

  @Test
  void windowsKeepingTheirDistribution_appearAsHistograms_withNoCode() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      RollingWindow payment = context.getBean("payment", RollingWindow.class);
      payment.record(30_000_000L);
      payment.record(300_000_000L);
      context.getBean("routes", KeyedWindows.class).record("/cart", 7_000_000L);
      String body = scrape(context);
      assertThat(body)
          .contains("# TYPE ringtail_window_seconds histogram")
          .containsPattern(
              "ringtail_window_seconds_bucket\\{window=\"payment\",le=\"0\\.05\"\\} 1\n")
          .containsPattern("ringtail_window_seconds_count\\{[^}]*window=\"payment\"[^}]*\\} 2")
          .containsPattern(
              "ringtail_keyed_seconds_count\\{[^}]*key=\"/cart\"[^}]*window=\"routes\"[^}]*\\} 1")
          // a window that keeps no distribution has its gauges only
          .doesNotContainPattern("ringtail_window_seconds_count\\{[^}]*window=\"checkout\"");
      context.getBean(RingtailHistograms.class).stop();
      assertThat(scrape(context)).doesNotContain("ringtail_window_seconds");
    }
  }

  @Test
  void endpointWindows_keepingTheirDistribution_appearAsHistograms_labelledByTheirTags()
      throws Exception {
    String series =
        "ringtail_keyed_seconds_count\\{[^}]*method=\"GET\"[^}]*outcome=\"SUCCESS\"[^}]*"
            + "status=\"200\"[^}]*uri=\"/actuator/prometheus\"[^}]*"
            + "window=\"http.server.requests\"[^}]*\\} [1-9]";
    try (ConfigurableApplicationContext context =
        start("--ringtail.observations.cumulative-histogram=true")) {
      scrape(context); // observed once its answer is out
      Await.until(
          "the endpoint's histogram on the Prometheus page",
          () -> {
            try {
              return java.util.regex.Pattern.compile(series).matcher(scrape(context)).find();
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
    }
    try (ConfigurableApplicationContext context = start()) {
      scrape(context);
      scrape(context);
      assertThat(scrape(context))
          .contains("ringtail_http_server_requests_samples") // the gauges, as ever
          .doesNotContainPattern("ringtail_keyed_seconds_count\\{[^}]*http.server.requests");
    }
  }

  /**
   * {@code ringtail.metrics.enabled=false} unbinds window and decision beans only; the endpoint
   * windows keep their meters until {@code ringtail.observations.enabled=false} (as the CHANGELOG
   * and docs/integrations.md say).
   */
  @Test
  void metricsDisabled_leavesTheEndpointWindows_whichHaveTheirOwnSwitch() throws Exception {
    try (ConfigurableApplicationContext context = start("--ringtail.metrics.enabled=false")) {
      context.getBean("checkout", RollingWindow.class).record(1_000_000L);
      scrape(context);
      Await.until(
          "the endpoint windows' gauges",
          () -> {
            try {
              return scrape(context).contains("ringtail_http_server_requests_samples");
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
      assertThat(scrape(context)).doesNotContain("window=\"checkout\"");
    }
    try (ConfigurableApplicationContext context =
        start("--ringtail.metrics.enabled=false", "--ringtail.observations.enabled=false")) {
      scrape(context);
      assertThat(scrape(context)).doesNotContain("ringtail_http_server_requests");
    }
  }

  /** The application on a random port, with Actuator's Prometheus endpoint exposed. */
  private static ConfigurableApplicationContext start(String... extra) {
    String[] args = {
      "--server.port=0",
      "--management.endpoints.web.exposure.include=prometheus",
      "--spring.main.banner-mode=off"
    };
    String[] all = java.util.Arrays.copyOf(args, args.length + extra.length);
    System.arraycopy(extra, 0, all, args.length, extra.length);
    return new SpringApplication(App.class).run(all);
  }

  private static String scrape(ConfigurableApplicationContext context) throws Exception {
    int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  @Test
  void actuatorPrometheus_showsRollingPercentileGauges_andTotalCounters() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      RollingWindow checkout = context.getBean("checkout", RollingWindow.class);
      for (int i = 1; i <= 100; i++) {
        checkout.record(i * 1_000_000L);
      }
      checkout.record(-1);
      assertThat(scrape(context))
          .contains("# TYPE ringtail_window_recorded_total counter")
          .containsPattern(
              "ringtail_window_recorded_total\\{[^}]*window=\"checkout\"[^}]*\\} 100\\.0")
          .containsPattern(
              "ringtail_window_rejections_total\\{[^}]*window=\"checkout\"[^}]*\\} 1\\.0")
          .containsPattern(
              "ringtail_window_recorded_sum_seconds_total\\{[^}]*window=\"checkout\"[^}]*\\} 5\\.05")
          .containsPattern(
              "ringtail_window_percentile_seconds\\{[^}]*phi=\"0\\.95\"[^}]*window=\"checkout\"[^}]*\\} 0\\.095")
          .containsPattern("ringtail_window_samples\\{[^}]*window=\"checkout\"[^}]*\\} 100\\.0");
    }
  }
}
