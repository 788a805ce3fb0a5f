package io.ringtail.examples.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two endpoints that do no work of their own, so that a load test sees what the framework and the
 * starter cost a request: the target of the service load report ({@code
 * benchmarks/service-load.sh}). Everything about Ringtail comes from properties; {@code
 * --configuration=NAME} stands for those of one of the report's configurations ({@link
 * #configuration}).
 */
@SpringBootApplication
@RestController
public class LoadTargetApplication {

  @GetMapping("/orders/{id}")
  Map<String, String> order(@PathVariable("id") String id) {
    return Map.of("order", id, "status", "shipped");
  }

  @GetMapping("/items/{id}/price")
  Map<String, Object> price(@PathVariable("id") String id) {
    return Map.of("item", id, "price", 42);
  }

  /**
   * The arguments of a configuration: {@code plain} (every Ringtail auto-configuration excluded, as
   * if the starter were not there), {@code starter} (its defaults: each endpoint's rolling window
   * and its meters) or {@code redis-limit:PORT} (the starter with a Redis backend on PORT and a
   * rate limit per client address on {@code /orders/**}, a million a second, that no request
   * reaches).
   *
   * @throws IllegalArgumentException for another name
   */
  public static List<String> configuration(String name) {
    if (name.equals("plain")) {
      return List.of(
          "--spring.autoconfigure.exclude=" + String.join(",", ringtailAutoConfigurations()));
    }
    if (name.equals("starter")) {
      return List.of();
    }
    if (name.startsWith("redis-limit:")) {
      return List.of(
          "--spring.data.redis.url=redis://127.0.0.1:" + name.substring("redis-limit:".length()),
          "--ringtail.redis.enabled=true",
          "--ringtail.limits.orders.path=/orders/**",
          "--ringtail.limits.orders.window=1s",
          "--ringtail.limits.orders.limit=1000000");
    }
    throw new IllegalArgumentException(
        "configuration must be plain, starter or redis-limit:PORT, but was \"" + name + "\"");
  }

  /** The starter's auto-configurations, as it registers them. */
  static List<String> ringtailAutoConfigurations() {
    List<String> out = new ArrayList<>();
    try {
      Enumeration<URL> imports =
          LoadTargetApplication.class
              .getClassLoader()
              .getResources(
                  "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
      while (imports.hasMoreElements()) {
        try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(
                    imports.nextElement().openStream(), StandardCharsets.UTF_8))) {
          in.lines().map(String::trim).filter(l -> l.startsWith("io.ringtail.")).forEach(out::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  public static void main(String[] args) {
    List<String> all = new ArrayList<>();
    for (String a : args) {
      if (a.startsWith("--configuration=")) {
        all.addAll(configuration(a.substring("--configuration=".length())));
      } else {
        all.add(a);
      }
    }
    SpringApplication.run(LoadTargetApplication.class, all.toArray(String[]::new));
  }
}
