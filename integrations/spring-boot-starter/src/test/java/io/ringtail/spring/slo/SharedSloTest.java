package io.ringtail.spring.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.slo.EventCounts;
import io.ringtail.slo.ServiceLevel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A real application on the default clock: the starter's observation windows time each request once
 * and hand it to the service levels ({@link SharedSlo}), the SLO handler standing aside; each
 * matching request is counted exactly once, its failure by its status. Where the windows cannot
 * serve (observation windows off, or a declaration selecting on a key value the windows leave out),
 * the SLO handler times the requests itself, with the same counts.
 */
class SharedSloTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<ConfigurableApplicationContext> apps = new ArrayList<>();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    @GetMapping("/orders/{id}")
    ResponseEntity<String> order(@PathVariable int id) {
      return id % 4 == 0 ? ResponseEntity.status(503).body("down") : ResponseEntity.ok("ok");
    }

    @GetMapping("/ping")
    String ping() {
      return "pong";
    }
  }

  @AfterEach
  void stop() {
    apps.forEach(ConfigurableApplicationContext::close);
  }

  private ConfigurableApplicationContext start(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--ringtail.slo.checkout.paths=/orders/**",
                "--ringtail.slo.checkout.objectives.available.target=0.99",
                "--ringtail.slo.checkout.objectives.fast.threshold=10s",
                "--ringtail.slo.checkout.objectives.fast.target=0.99"));
    args.addAll(List.of(more));
    ConfigurableApplicationContext app =
        SpringApplication.run(App.class, args.toArray(String[]::new));
    apps.add(app);
    return app;
  }

  private void get(ConfigurableApplicationContext app, String path) throws Exception {
    int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.discarding());
  }

  private static EventCounts recorded(ConfigurableApplicationContext app, String objective) {
    ServiceLevel slo = app.getBean(ServiceLevels.class).serviceLevel("checkout");
    return slo.status().objective(objective).recorded();
  }

  /** Serves 40 orders (10 of them 503) and 7 pings; returns once all 40 are counted. */
  private void serve(ConfigurableApplicationContext app) throws Exception {
    for (int i = 1; i <= 40; i++) {
      get(app, "/orders/" + i);
      if (i % 6 == 0) {
        get(app, "/ping");
      }
    }
    // a request's observation stops after its response may have reached the client
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (recorded(app, "available").total() < 40 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
  }

  private static void assertCountedOnce(ConfigurableApplicationContext app) {
    EventCounts available = recorded(app, "available");
    assertThat(available.total()).as("orders counted, once each").isEqualTo(40);
    assertThat(available.total() - available.good()).as("503s").isEqualTo(10);
    EventCounts fast = recorded(app, "fast");
    assertThat(fast.total()).isEqualTo(40);
    assertThat(fast.good()).as("every order within 10 s").isEqualTo(40);
  }

  @Test
  void theObservationWindowsTimeEachRequestOnce_forTheServiceLevels() throws Exception {
    ConfigurableApplicationContext app = start();
    serve(app);
    assertThat(app.getBean(ServiceLevels.class).isShared()).isTrue();
    assertCountedOnce(app);
  }

  @Test
  void withoutObservationWindows_theSloHandlerTimesThemItself() throws Exception {
    ConfigurableApplicationContext app = start("--ringtail.observations.enabled=false");
    serve(app);
    assertThat(app.getBean(ServiceLevels.class).isShared()).isFalse();
    assertCountedOnce(app);
  }

  @Test
  void aDeclarationOnAKeyValueTheWindowsLeaveOut_keepsTheSloHandler() throws Exception {
    ConfigurableApplicationContext app = start("--ringtail.slo.checkout.key-values.exception=none");
    serve(app);
    assertThat(app.getBean(ServiceLevels.class).isShared()).isFalse();
    assertCountedOnce(app);
  }
}
