package io.ringtail.examples.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;

/**
 * Two API instances with the Redis limiter share one limit per key, against a real redis-server.
 */
class FleetRateLimitTest {
  private static RedisServer redis;
  private static RedisClient client;

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    redis = RedisServer.builder().bind("127.0.0.1").port(port).setting("save \"\"").build();
    redis.start();
    client = RedisClient.create("redis://127.0.0.1:" + port);
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
  }

  @AfterAll
  static void stop() throws Exception {
    client.shutdown();
    redis.stop();
  }

  @Test
  void twoInstances_shareTheLimitOfEachKey() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    try (StatefulRedisConnection<String, String> c1 = client.connect();
        StatefulRedisConnection<String, String> c2 = client.connect();
        RateLimitedApi a = new RateLimitedApi(0, limiter(c1));
        RateLimitedApi b = new RateLimitedApi(0, limiter(c2))) {
      a.start();
      b.start();

      assertThat(get(http, a, "alice").statusCode()).isEqualTo(200);
      assertThat(get(http, b, "alice").statusCode()).isEqualTo(200);
      assertThat(get(http, a, "alice").statusCode()).isEqualTo(200);
      HttpResponse<String> denied = get(http, b, "alice");

      assertThat(denied.statusCode()).as("the 4th request, on the other instance").isEqualTo(429);
      assertThat(Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow()))
          .isBetween(1L, 60L);
      assertThat(get(http, b, "bob").statusCode()).isEqualTo(200);
    }
  }

  private static RateLimiter limiter(StatefulRedisConnection<String, String> connection) {
    RedisBackend backend = RedisBackend.builder(connection).build();
    return backend.rateLimiter(
        "api-test-" + ProcessHandle.current().pid(),
        RateLimitedApi.config(3, backend.serverClock()));
  }

  private static HttpResponse<String> get(HttpClient http, RateLimitedApi api, String key)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(api.uri()).header(RateLimitedApi.KEY_HEADER, key).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
