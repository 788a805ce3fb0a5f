package io.ringtail.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.Await;
import io.ringtail.spring.observation.ObservationWindows;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** The ringtail Actuator endpoint over HTTP, and the configuration metadata the jar carries. */
class EndpointAndMetadataTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    @Bean
    RollingWindow checkout() {
      return RollingWindow.create(WindowConfig.builder().length(Duration.ofMinutes(1)).build());
    }

    @Bean
    KeyedWindows perTenant() {
      return KeyedWindows.builder().build();
    }

    @GetMapping("/orders/{id}")
    String order(@PathVariable("id") String id) {
      return id;
    }
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  @Test
  void theEndpoint_isNotExposedUntilNamed() throws Exception {
    try (ConfigurableApplicationContext context =
        SpringApplication.run(App.class, "--server.port=0", "--spring.main.banner-mode=off")) {
      assertThat(get(port(context), "/actuator/ringtail").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void exposed_itListsWindows_andShowsSnapshotsAsJson() throws Exception {
    try (ConfigurableApplicationContext context =
        SpringApplication.run(
            App.class,
            "--server.port=0",
            "--spring.main.banner-mode=off",
            "--management.endpoints.web.exposure.include=ringtail")) {
      int port = port(context);
      RollingWindow checkout = context.getBean("checkout", RollingWindow.class);
      for (int i = 1; i <= 100; i++) {
        checkout.record(i * 1_000_000L);
      }
      context.getBean(KeyedWindows.class).record("acme", 7_000_000);
      assertThat(get(port, "/orders/42").statusCode()).isEqualTo(200);

      String list = get(port, "/actuator/ringtail").body();
      assertThat(list)
          .contains("{\"name\":\"checkout\",\"kind\":\"window\",\"length\":\"PT1M\"}")
          .contains("{\"name\":\"perTenant\",\"kind\":\"keyed\",\"length\":\"PT1M\",\"keys\":1}")
          .contains("{\"name\":\"http.server.requests\",\"kind\":\"observation\"");

      String one = get(port, "/actuator/ringtail/checkout").body();
      assertThat(one)
          .contains("\"count\":100")
          .contains("\"min\":1000000.0")
          .containsPattern("\"0\\.95\":9\\.5\\d*E7") // P95 of 1..100 ms, to the window's digits
          .contains("\"totals\":{\"count\":100");
      // the server observation stops after the response is written: wait for it, bounded
      ObservationWindows observations = context.getBean(ObservationWindows.class);
      Await.until(
          "the endpoint request's observation",
          () -> !observations.windows().get("http.server.requests").snapshots().isEmpty());
      assertThat(get(port, "/actuator/ringtail/http.server.requests").body())
          .contains("\"uri\":\"/orders/{id}\"")
          .contains("\"count\":1");
      assertThat(get(port, "/actuator/ringtail/nothing").statusCode()).isEqualTo(404);
      assertThat(
              http.send(
                      HttpRequest.newBuilder(
                              URI.create(
                                  "http://127.0.0.1:" + port + "/actuator/ringtail/checkout"))
                          .DELETE()
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(405);
    }
  }

  @Test
  void configurationMetadata_givesThePercentilesDefault() throws Exception {
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(json.replaceAll("\\s", ""))
          .contains(
              "\"name\":\"ringtail.metrics.percentiles\",\"type\":\"java.util.List<java.lang.Double>\"")
          .containsPattern(
              "\"defaultValue\":\\[0\\.5,0\\.95,0\\.99\\][^}]*\"name\":\"ringtail\\.metrics\\.percentiles\"|\"name\":\"ringtail\\.metrics\\.percentiles\"[^}]*\"defaultValue\":\\[0\\.5,0\\.95,0\\.99\\]");
    }
  }
}
