package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.decision.DecisionCounts;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.AppRequests;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
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
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A {@link RingtailLimit} fleet-wide: two instances of one application, a Spring MVC one and a
 * WebFlux one, each on a random port with its own Redis connection, against one real redis-server.
 * Exactly the annotated limit is admitted across both, and the header fields follow the fleet's
 * count.
 */
class FleetAnnotatedHttpLimitsTest {
  private static final Pattern STATE = Pattern.compile("\"orders\";r=(\\d+)(;t=(\\d+))?");

  private final List<ConfigurableApplicationContext> pods = new ArrayList<>();
  private RedisProcess server;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    final AtomicInteger served = new AtomicInteger();

    @GetMapping("/orders/{id}")
    @RingtailLimit(name = "orders", limit = "5", key = "header:X-Api-Key")
    String order(@PathVariable String id) {
      served.incrementAndGet();
      return "order " + id;
    }
  }

  @BeforeEach
  void startRedis() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() {
    pods.forEach(ConfigurableApplicationContext::close);
    server.close();
  }

  private ConfigurableApplicationContext pod(String type) {
    ConfigurableApplicationContext pod =
        SpringApplication.run(
            App.class,
            "--server.port=0",
            "--spring.main.banner-mode=off",
            "--spring.main.web-application-type=" + type,
            "--spring.data.redis.url=redis://127.0.0.1:" + server.port(),
            "--ringtail.redis.enabled=true",
            "--ringtail.redis.command-timeout=2s");
    pods.add(pod);
    assertThat(pod.getBean(HttpLimits.class).remote()).isTrue();
    return pod;
  }

  private HttpResponse<String> get(ConfigurableApplicationContext pod, int id) throws Exception {
    return AppRequests.send(pod, "GET", "/orders/" + id, "X-Api-Key", "alice");
  }

  @Test
  void anMvcPodAndAWebFluxPod_admitExactlyTheAnnotatedLimit_withTheFleetsCountInTheirHeaders()
      throws Exception {
    ConfigurableApplicationContext mvc = pod("servlet");
    ConfigurableApplicationContext flux = pod("reactive");
    int admitted = 0;
    for (int i = 0; i < 12; i++) {
      HttpResponse<String> r = get(i % 2 == 0 ? mvc : flux, i);
      assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=60");
      String field = r.headers().firstValue("RateLimit").orElseThrow();
      Matcher m = STATE.matcher(field);
      assertThat(m.matches()).as(field).isTrue();
      if (r.statusCode() == 200) {
        admitted++;
        assertThat(r.body()).isEqualTo("order " + i);
        assertThat(Long.parseLong(m.group(1)))
            .as("remaining after the fleet's %d-th", admitted)
            .isEqualTo(5 - admitted);
        // t once nothing remains
        assertThat(m.group(3) == null).isEqualTo(admitted < 5);
      } else {
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(m.group(1)).isEqualTo("0");
        assertThat(Long.parseLong(m.group(3))).isBetween(1L, 60L);
        assertThat(r.headers().firstValue("Retry-After")).hasValue(m.group(3));
      }
    }
    assertThat(admitted).isEqualTo(5);
    long allowed = 0;
    long denied = 0;
    for (ConfigurableApplicationContext pod : List.of(mvc, flux)) {
      DecisionCounts counts =
          pod.getBean(HttpLimits.class).decisions().get("orders").decisionCounts();
      allowed += counts.allowed();
      denied += counts.denied();
    }
    assertThat(allowed).isEqualTo(5);
    assertThat(denied).isEqualTo(7);
    // the handlers ran once per admitted request, on either pod
    assertThat(mvc.getBean(App.class).served.get() + flux.getBean(App.class).served.get())
        .isEqualTo(5);
  }
}
