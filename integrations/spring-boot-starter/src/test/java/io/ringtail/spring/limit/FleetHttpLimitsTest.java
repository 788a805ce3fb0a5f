package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code ringtail.limits} fleet-wide: two instances ("pods") of one application, each on a random
 * port with its own Redis connection, against one real redis-server. Exactly the limit is admitted
 * across both, sequentially and concurrently, on Spring MVC and WebFlux alike; the header fields
 * follow the fleet's count; while the server is stopped the outage policy answers.
 */
class FleetHttpLimitsTest {
  private static final Pattern STATE = Pattern.compile("\"api\";r=(\\d+)(;t=(\\d+))?");

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<ConfigurableApplicationContext> pods = new ArrayList<>();
  private RedisProcess server;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    final AtomicInteger quotes = new AtomicInteger();

    @GetMapping("/api/quote")
    String quote() {
      quotes.incrementAndGet();
      return "quote";
    }
  }

  @BeforeEach
  void startRedis() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() {
    server.resume();
    pods.forEach(ConfigurableApplicationContext::close);
    server.close();
  }

  /** A pod limiting /api/** to {@code limit} a minute per X-Api-Key, fleet-wide. */
  private ConfigurableApplicationContext pod(String type, int limit, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--spring.main.web-application-type=" + type,
                "--spring.data.redis.url=redis://127.0.0.1:" + server.port(),
                "--ringtail.redis.enabled=true",
                "--ringtail.redis.command-timeout=2s",
                "--ringtail.limits.api.path=/api/**",
                "--ringtail.limits.api.key=header:X-Api-Key",
                "--ringtail.limits.api.limit=" + limit));
    for (String e : extra) { // replaces a value above: a repeated one would be joined to it
      args.removeIf(a -> a.startsWith(e.substring(0, e.indexOf('=') + 1)));
      args.add(e);
    }
    ConfigurableApplicationContext pod =
        SpringApplication.run(App.class, args.toArray(String[]::new));
    pods.add(pod);
    assertThat(pod.getBean(HttpLimits.class).remote()).isTrue();
    return pod;
  }

  private HttpRequest request(ConfigurableApplicationContext pod, String key) {
    int port = Integer.parseInt(pod.getEnvironment().getProperty("local.server.port"));
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/quote"))
        .header("X-Api-Key", key)
        .timeout(Duration.ofSeconds(10))
        .build();
  }

  private HttpResponse<String> get(ConfigurableApplicationContext pod, String key)
      throws Exception {
    return http.send(request(pod, key), HttpResponse.BodyHandlers.ofString());
  }

  /** The remaining count of the RateLimit field, and its t (or -1). */
  private static long[] state(HttpResponse<?> r) {
    String field = r.headers().firstValue("RateLimit").orElseThrow();
    Matcher m = STATE.matcher(field);
    assertThat(m.matches()).as(field).isTrue();
    return new long[] {
      Long.parseLong(m.group(1)), m.group(3) == null ? -1 : Long.parseLong(m.group(3))
    };
  }

  @Test
  void twoPods_admitExactlyTheLimit_sequentially_withTheFleetsRemainingInTheirHeaders()
      throws Exception {
    ConfigurableApplicationContext a = pod("servlet", 5);
    ConfigurableApplicationContext b = pod("servlet", 5);
    int admitted = 0;
    for (int i = 0; i < 12; i++) {
      HttpResponse<String> r = get(i % 2 == 0 ? a : b, "alice");
      assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=60");
      long[] state = state(r);
      if (r.statusCode() == 200) {
        admitted++;
        assertThat(state[0])
            .as("remaining after the fleet's %d-th", admitted)
            .isEqualTo(5 - admitted);
        // t once nothing remains
        assertThat(state[1] == -1).isEqualTo(admitted < 5);
        assertThat(r.headers().firstValue("Retry-After")).isEmpty();
      } else {
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(state[0]).isZero();
        assertThat(state[1]).isBetween(1L, 60L);
        assertThat(r.headers().firstValue("Retry-After")).hasValue(Long.toString(state[1]));
      }
    }
    assertThat(admitted).isEqualTo(5);
    long allowed = 0;
    long denied = 0;
    for (ConfigurableApplicationContext pod : List.of(a, b)) {
      var counts = pod.getBean(HttpLimits.class).decisions().get("api").decisionCounts();
      allowed += counts.allowed();
      denied += counts.denied();
    }
    assertThat(allowed).isEqualTo(5);
    assertThat(denied).isEqualTo(7);
  }

  @Test
  void anMvcPodAndAWebFluxPod_admitExactlyTheLimit_underConcurrentRequests() throws Exception {
    ConfigurableApplicationContext mvc = pod("servlet", 20);
    ConfigurableApplicationContext flux = pod("reactive", 20);
    // the first decision measures the server clock and loads the functions: not part of the race
    assertThat(get(mvc, "warm").statusCode()).isEqualTo(200);
    assertThat(get(flux, "warm").statusCode()).isEqualTo(200);
    List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      sent.add(
          http.sendAsync(
              request(i % 2 == 0 ? mvc : flux, "burst"), HttpResponse.BodyHandlers.ofString()));
    }
    int ok = 0;
    int tooMany = 0;
    List<Integer> statuses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> f : sent) {
      statuses.add(f.get().statusCode());
    }
    assertThat(statuses).as("statuses").containsOnly(200, 429);
    for (CompletableFuture<HttpResponse<String>> f : sent) {
      HttpResponse<String> r = f.get();
      if (r.statusCode() == 200) {
        ok++;
      } else {
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        tooMany++;
      }
    }
    assertThat(ok).isEqualTo(20);
    assertThat(tooMany).isEqualTo(80);
    // each admitted request reached a handler once, the warm-ups too; no denied one did
    assertThat(mvc.getBean(App.class).quotes.get() + flux.getBean(App.class).quotes.get())
        .isEqualTo(22);
  }

  /**
   * A cold WebFlux pod (no request yet: the server clock not measured, the functions maybe not
   * loaded) takes its first requests all at once: each admitted one reads its own remaining count,
   * exactly the limit is admitted, and no outage policy answers while Redis is up.
   */
  @Test
  void aColdWebFluxPod_decidesItsConcurrentFirstRequestsExactly() throws Exception {
    for (int round = 0; round < 3; round++) {
      ConfigurableApplicationContext cold = pod("reactive", 5, "--ringtail.limits.api.window=4s");
      List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        sent.add(
            http.sendAsync(request(cold, "cold-" + round), HttpResponse.BodyHandlers.ofString()));
      }
      List<Long> remaining = new ArrayList<>();
      int denied = 0;
      for (CompletableFuture<HttpResponse<String>> f : sent) {
        HttpResponse<String> r = f.get();
        assertThat(r.statusCode()).as("round %d", round).isIn(200, 429);
        if (r.statusCode() == 200) {
          remaining.add(state(r)[0]);
        } else {
          denied++;
        }
      }
      assertThat(remaining).as("round %d", round).containsExactlyInAnyOrder(4L, 3L, 2L, 1L, 0L);
      assertThat(denied).isEqualTo(7);
      assertThat(cold.getBean(RedisBackend.class).outageDecisions()).isZero();
      assertThat(get(cold, "cold-" + round).statusCode()).isEqualTo(429);
      cold.close();
    }
  }

  @Test
  void anOutagePolicyTheBackendHasNot_failsTheStart_namingTheProperty() {
    assertThatThrownBy(() -> pod("servlet", 5, "--ringtail.redis.outage-policy=retry"))
        .hasStackTraceContaining(
            "ringtail.redis.outage-policy must be fail-closed, fail-open or throw, but was \"retry\"");
  }

  @Test
  void whileRedisIsStopped_theOutagePolicyAnswers_andDecisionsResumeAfter() throws Exception {
    String timeout = "--ringtail.redis.command-timeout=200ms";
    ConfigurableApplicationContext closed = pod("servlet", 5, timeout);
    ConfigurableApplicationContext open =
        pod("reactive", 5, timeout, "--ringtail.redis.outage-policy=fail-open");
    ConfigurableApplicationContext throwing =
        pod(
            "servlet",
            5,
            timeout,
            "--ringtail.redis.outage-policy=throw",
            "--ringtail.redis.outage-retry-after=3s");
    assertThat(get(closed, "warm").statusCode()).isEqualTo(200);
    assertThat(get(open, "warm").statusCode()).isEqualTo(200);
    assertThat(get(throwing, "warm").statusCode()).isEqualTo(200);

    server.pause();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> denied = get(closed, "carol");
      assertThat(denied.statusCode()).isEqualTo(429);
      assertThat(denied.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(denied.headers().firstValue("RateLimit")).hasValue("\"api\";r=0;t=1");

      HttpResponse<String> admitted = get(open, "carol");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.headers().firstValue("RateLimit")).hasValue("\"api\";r=5");

      HttpResponse<String> unavailable = get(throwing, "carol");
      assertThat(unavailable.statusCode()).isEqualTo(503);
      assertThat(unavailable.headers().firstValue("Retry-After")).hasValue("3");
      assertThat(unavailable.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=60");
      assertThat(unavailable.headers().firstValue("RateLimit")).hasValue("\"api\";r=0;t=3");
      assertThat(unavailable.body()).contains("limit \"api\" cannot be decided now; retry in 3 s");
    }
    assertThat(closed.getBean(RedisBackend.class).outageDecisions()).isEqualTo(3);
    assertThat(open.getBean(RedisBackend.class).outageDecisions()).isEqualTo(3);
    // under throw no decision is made: the 503s count as the limit's, not the backend's
    assertThat(throwing.getBean(RedisBackend.class).outageDecisions()).isZero();
    assertThat(
            throwing
                .getBean(MeterRegistry.class)
                .get("ringtail.limits.unavailable")
                .tag("limit", "api")
                .functionCounter()
                .count())
        .isEqualTo(3);

    server.resume();
    // nothing was recorded during the outage: carol's five are all still to come, once Redis
    // answers again (the breaker lets a probe through within a second)
    Await.until(
        "the closed pod decides in Redis again",
        () -> {
          try {
            return get(closed, "carol").statusCode() == 200;
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
    int[] more = new int[1];
    Await.until(
        "the throwing pod admits the rest of carol's five, then denies",
        () -> {
          try {
            int status = get(throwing, "carol").statusCode();
            more[0] += status == 200 ? 1 : 0;
            return status == 429;
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
    assertThat(more[0]).isEqualTo(4);
  }
}
