package io.ringtail.examples.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.observation.ObservationWindows;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The service load report's three configurations of its target, on a random port: plain holds no
 * Ringtail bean at all, the starter windows both endpoints, and the Redis limit decides every order
 * request in Redis.
 */
class LoadTargetApplicationTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private ConfigurableApplicationContext context;

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  private void start(String configuration) {
    List<String> args =
        new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off"));
    args.addAll(LoadTargetApplication.configuration(configuration));
    context = SpringApplication.run(LoadTargetApplication.class, args.toArray(String[]::new));
  }

  private HttpResponse<String> get(String path) throws Exception {
    int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void plain_holdsNoRingtailBean() throws Exception {
    assertThat(LoadTargetApplication.ringtailAutoConfigurations())
        .contains("io.ringtail.spring.RingtailAutoConfiguration")
        .hasSizeGreaterThan(3);
    start("plain");
    assertThat(get("/orders/7").body()).contains("\"order\":\"7\"");
    assertThat(
            Arrays.stream(context.getBeanDefinitionNames())
                .map(n -> context.getBeanFactory().getBeanDefinition(n).getBeanClassName())
                .filter(c -> c != null && c.startsWith("io.ringtail.spring")))
        .isEmpty();
    assertThat(context.getBeansOfType(ObservationWindows.class)).isEmpty();
  }

  @Test
  void starter_windowsBothEndpoints() throws Exception {
    start("starter");
    for (int i = 0; i < 5; i++) {
      assertThat(get("/orders/" + i).statusCode()).isEqualTo(200);
      assertThat(get("/items/" + i + "/price").statusCode()).isEqualTo(200);
    }
    KeyedWindows windows =
        context.getBean(ObservationWindows.class).windows().get("http.server.requests");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    // a server observation stops after its response is written: the last may land a moment later
    while (windows.snapshots().values().stream().mapToLong(s -> s.count()).sum() < 10
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(windows.snapshots().keySet())
        .anyMatch(k -> k.contains("/orders/{id}"))
        .anyMatch(k -> k.contains("/items/{id}/price"));
    assertThat(windows.snapshots().values().stream().mapToLong(s -> s.count()).sum()).isEqualTo(10);
  }

  @Test
  void redisLimit_decidesOrdersInRedis_andAdmitsThem() throws Exception {
    try (RedisProcess redis = RedisProcess.start()) {
      start("redis-limit:" + redis.port());
      HttpResponse<String> order = get("/orders/1");
      assertThat(order.statusCode()).isEqualTo(200);
      assertThat(order.headers().firstValue("RateLimit-Policy"))
          .hasValue("\"orders\";q=1000000;w=1");
      assertThat(get("/items/1/price").headers().firstValue("RateLimit-Policy")).isEmpty();
      io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
      try (var connection = client.connect(redis.uri())) {
        assertThat(connection.sync().keys("*orders*"))
            .as("the limit's state in Redis")
            .isNotEmpty();
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void anUnknownConfiguration_isRefusedByName() {
    assertThatThrownBy(() -> LoadTargetApplication.configuration("fast"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain, starter or redis-limit:PORT")
        .hasMessageContaining("\"fast\"");
  }
}
