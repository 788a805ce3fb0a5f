package io.ringtail.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.redis.testkit.RedisProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shop, which holds no Ringtail code, on a random port: real HTTP requests show as each
 * endpoint's rolling P95 at /actuator/prometheus; with a real redis-server, the backend's health.
 */
class ShopApplicationTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> send(int port, String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  /**
   * The scrape once it counts {@code requests} requests of {@code uri}: a server observation stops
   * after its response is written, so the last one may land a moment after the client returns.
   * Polls for at most 10 s.
   */
  private String scrapeCounting(int port, String uri, int requests) throws Exception {
    Pattern recorded =
        Pattern.compile(
            "ringtail_http_server_requests_recorded_total\\{[^}]*uri=\""
                + Pattern.quote(uri)
                + "\"[^}]*\\} ([0-9.]+)");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      String metrics = send(port, "GET", "/actuator/prometheus").body();
      Matcher m = recorded.matcher(metrics);
      if ((m.find() && Double.parseDouble(m.group(1)) >= requests)
          || System.nanoTime() > deadline) {
        return metrics;
      }
      Thread.sleep(20);
    }
  }

  /** One gauge of an endpoint's window from a scrape ({@code phi} for percentiles, else null). */
  private static double gauge(
      String metrics, String statistic, String method, String uri, String phi) {
    Pattern line =
        Pattern.compile(
            "ringtail_http_server_requests_"
                + statistic
                + "_seconds\\{method=\""
                + method
                + "\",outcome=\"SUCCESS\","
                + (phi == null ? "" : "phi=\"" + Pattern.quote(phi) + "\",")
                + "status=\"200\",uri=\""
                + Pattern.quote(uri)
                + "\",window=\"http.server.requests\"\\} ([0-9.Ee-]+)");
    Matcher m = line.matcher(metrics);
    assertThat(m.find()).as(statistic + " " + method + " " + uri).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void realRequests_showEachEndpointsRollingP95_inPrometheus() throws Exception {
    try (ConfigurableApplicationContext context =
        SpringApplication.run(
            ShopApplication.class, "--server.port=0", "--spring.main.banner-mode=off")) {
      int port = port(context);
      for (int i = 0; i < 20; i++) {
        assertThat(send(port, "POST", "/checkout?slow=true").statusCode()).isEqualTo(200);
        assertThat(send(port, "GET", "/orders/" + i).statusCode()).isEqualTo(200);
      }
      String metrics = scrapeCounting(port, "/checkout", 20);
      assertThat(metrics)
          .contains(
              "ringtail_http_server_requests_recorded_total{method=\"POST\",outcome=\"SUCCESS\","
                  + "status=\"200\",uri=\"/checkout\",window=\"http.server.requests\"} 20.0")
          .contains(
              "ringtail_http_server_requests_recorded_total{method=\"GET\",outcome=\"SUCCESS\","
                  + "status=\"200\",uri=\"/orders/{id}\",window=\"http.server.requests\"} 20.0");
      // every slow checkout works at least 260 ms, so its P95 does too; how much longer a loaded
      // machine takes is not asserted
      double checkoutP95 = gauge(metrics, "percentile", "POST", "/checkout", "0.95");
      assertThat(checkoutP95)
          .isGreaterThanOrEqualTo(0.26)
          .isLessThanOrEqualTo(gauge(metrics, "max", "POST", "/checkout", null));
      assertThat(gauge(metrics, "percentile", "GET", "/orders/{id}", "0.95"))
          .isPositive()
          .isLessThanOrEqualTo(gauge(metrics, "max", "GET", "/orders/{id}", null));
      // one series per URI template, never per order id
      assertThat(metrics).doesNotContain("uri=\"/orders/7\"");
      assertThat(send(port, "GET", "/actuator/ringtail/http.server.requests").body())
          .contains("\"uri\":\"/checkout\"");
    }
  }

  @Test
  void withRedis_theBackendsHealthAndMetersShow() throws Exception {
    try (RedisProcess redis = RedisProcess.start();
        ConfigurableApplicationContext context =
            SpringApplication.run(
                ShopApplication.class,
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--spring.data.redis.url=redis://127.0.0.1:" + redis.port(),
                "--ringtail.redis.enabled=true")) {
      int port = port(context);
      HttpResponse<String> health = send(port, "GET", "/actuator/health/ringtailRedis");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"breaker\":\"CLOSED\"");
      assertThat(send(port, "GET", "/actuator/prometheus").body())
          .contains("ringtail_redis_breaker_state{state=\"closed\"} 1.0");
    }
  }
}
