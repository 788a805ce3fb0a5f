package io.ringtail.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.alert.AlertEvent;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.RedisProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** The shop on a random port with a real redis-server: endpoint, Prometheus output, SLO alert. */
class ShopApplicationTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private String get(int port, String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return response.body();
  }

  @Test
  void checkouts_showInPrometheus_forTheInstanceAndTheFleet_andSlowOnesFireTheSlo()
      throws Exception {
    try (RedisProcess redis = RedisProcess.start();
        ConfigurableApplicationContext context =
            SpringApplication.run(
                ShopApplication.class,
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--ringtail.alerts.interval=1h",
                "--spring.data.redis.url=redis://127.0.0.1:" + redis.port(),
                "--ringtail.redis.enabled=true")) {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      for (int i = 0; i < 20; i++) {
        assertThat(get(port, "/checkout?slow=true")).contains("\"order\"");
      }
      assertThat(context.getBean(RedisRollingWindow.class).snapshot().count()).isEqualTo(20);
      String metrics = get(port, "/actuator/prometheus");
      assertThat(metrics)
          .containsPattern(
              "ringtail_window_recorded_total\\{[^}]*window=\"checkoutLatency\"[^}]*\\} 20\\.0")
          .containsPattern(
              "ringtail_window_recorded_total\\{[^}]*window=\"fleetCheckoutLatency\"[^}]*\\} 20\\.0")
          .containsPattern(
              "ringtail_window_percentile_seconds\\{[^}]*phi=\"0\\.95\"[^}]*window=\"fleetCheckoutLatency\"[^}]*\\} 0\\.(2[6-9]|30)");
      List<AlertEvent> events =
          context.getBean(AlertMonitor.class).evaluate(); // the hourly schedule, now
      assertThat(events)
          .extracting(e -> e.rule().name() + " " + e.type())
          .containsExactly("checkout-slo FIRED");
    }
  }
}
