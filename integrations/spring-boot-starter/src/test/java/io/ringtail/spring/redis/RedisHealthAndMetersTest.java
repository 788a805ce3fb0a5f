package io.ringtail.spring.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.Await;
import io.ringtail.spring.BootAutoConfigurations;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A web application with the Redis backend on a real redis-server, over HTTP on a random port: the
 * decision meters, the backend's meters and its health while the server is stopped (SIGSTOP: the
 * breaker opens) and after it continues (the breaker closes).
 */
class RedisHealthAndMetersTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private RedisProcess server;
  private ConfigurableApplicationContext context;
  private int port;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    RateLimiter perTool(RedisBackend backend) {
      return backend.rateLimiter(
          "tools-" + System.nanoTime(),
          RateLimitConfig.builder().limit(2).window(Duration.ofMinutes(1)).build());
    }
  }

  @BeforeEach
  void start() {
    server = RedisProcess.start();
    context = startApp();
  }

  private ConfigurableApplicationContext startApp(String... extra) {
    String[] common = {
      "--server.port=0",
      "--spring.main.banner-mode=off",
      "--spring.data.redis.url=redis://127.0.0.1:" + server.port(),
      "--ringtail.redis.enabled=true",
      "--ringtail.redis.command-timeout=200ms",
      "--management.endpoints.web.exposure.include=health,prometheus",
      "--management.endpoint.health.show-details=always"
    };
    String[] args = java.util.Arrays.copyOf(common, common.length + extra.length);
    System.arraycopy(extra, 0, args, common.length, extra.length);
    ConfigurableApplicationContext started = SpringApplication.run(App.class, args);
    port = Integer.parseInt(started.getEnvironment().getProperty("local.server.port"));
    return started;
  }

  @AfterEach
  void stop() {
    server.resume();
    context.close();
    server.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The ringtailRedis health component's status and breaker state over HTTP, and its body; on Boot
   * 3.5, whose health API the indicator does not implement, there is no such component.
   */
  private String assertHealth(int code, String status, String breaker) throws Exception {
    HttpResponse<String> health = get("/actuator/health/ringtailRedis");
    if (!BootAutoConfigurations.boot4()) {
      assertThat(health.statusCode()).isEqualTo(404);
      return health.body();
    }
    assertThat(health.statusCode()).isEqualTo(code);
    assertThat(health.body())
        .contains("\"status\":\"" + status + "\"")
        .contains("\"breaker\":\"" + breaker + "\"");
    return health.body();
  }

  @Test
  void decisions_breakerOpen_thenClosed_showInMetersAndHealth() throws Exception {
    RateLimiter limiter = context.getBean(RateLimiter.class);
    assertThat(limiter.tryAcquire("whois").allowed()).isTrue();
    assertThat(limiter.tryAcquire("whois").allowed()).isTrue();
    assertThat(limiter.tryAcquire("whois").allowed()).isFalse();
    assertThat(limiter.tryAcquire("whois").allowed()).isFalse(); // held: answered locally

    assertHealth(200, "UP", "CLOSED");
    String metrics = get("/actuator/prometheus").body();
    assertThat(metrics)
        .contains(
            "ringtail_decisions_total{decision=\"perTool\",outcome=\"allowed\",type=\"rate_limiter\"} 2.0")
        .contains(
            "ringtail_decisions_total{decision=\"perTool\",outcome=\"denied\",type=\"rate_limiter\"} 2.0")
        .contains(
            "ringtail_decisions_answered_total{by=\"local\",decision=\"perTool\",type=\"rate_limiter\"} 1.0")
        .contains("ringtail_redis_breaker_state{state=\"closed\"} 1.0");

    server.pause();
    for (int i = 0; i < 10; i++) {
      assertThat(limiter.tryAcquire("other-" + i).allowed()).isFalse(); // fail closed
    }
    String down = assertHealth(503, "DOWN", "OPEN");
    if (BootAutoConfigurations.boot4()) {
      // what docs/integrations.md shows: a stopped server's calls time out
      assertThat(down)
          .contains("\"reason\":\"circuit breaker OPEN since")
          .contains("\"lastFailure\":\"TimeoutException\"");
    }
    metrics = get("/actuator/prometheus").body();
    assertThat(metrics)
        .contains("ringtail_redis_breaker_state{state=\"open\"} 1.0")
        .contains(
            "ringtail_decisions_answered_total{by=\"outage_policy\",decision=\"perTool\",type=\"rate_limiter\"} 10.0")
        .contains("ringtail_redis_decisions_outage_policy_total 10.0")
        .containsPattern("ringtail_redis_calls_failed_total [1-9]")
        .containsPattern("ringtail_redis_calls_refused_total [1-9]");

    server.resume();
    Await.until(
        "the breaker closes once Redis answers",
        () -> {
          limiter.tryAcquire("probe");
          return context
              .getBean(RedisBackend.class)
              .circuitBreaker()
              .getState()
              .name()
              .equals("CLOSED");
        });
    assertHealth(200, "UP", "CLOSED");
    assertThat(get("/actuator/prometheus").body())
        .contains("ringtail_redis_breaker_state{state=\"closed\"} 1.0");
  }

  /**
   * Half-open, the breaker lets calls through to Redis again to see whether it answers: the
   * component reads UP then, as docs/integrations.md says, with the state in its details.
   */
  @Test
  void halfOpenBreaker_readsUp_withTheStateInItsDetails() throws Exception {
    // no fleet observation windows: their publication rounds would close the breaker at once
    context.close();
    context = startApp("--ringtail.observations.enabled=false");
    var breaker = context.getBean(RedisBackend.class).circuitBreaker();
    breaker.transitionToOpenState();
    assertHealth(503, "DOWN", "OPEN");
    breaker.transitionToHalfOpenState();
    assertHealth(200, "UP", "HALF_OPEN");
    assertThat(get("/actuator/prometheus").body())
        .contains("ringtail_redis_breaker_state{state=\"half_open\"} 1.0");
  }
}
