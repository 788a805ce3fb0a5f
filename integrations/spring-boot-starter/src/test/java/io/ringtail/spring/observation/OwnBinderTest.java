package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.micrometer.WindowMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** A window the application binds with its own MeterBinder is published once, under its name. */
class OwnBinderTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    RollingWindow checkout() {
      return RollingWindow.create(WindowConfig.builder().length(Duration.ofMinutes(1)).build());
    }

    @Bean
    RollingWindow search() {
      return RollingWindow.create(WindowConfig.builder().length(Duration.ofMinutes(1)).build());
    }

    @Bean
    MeterBinder checkoutBinder(@Qualifier("checkout") RollingWindow checkout) {
      return WindowMetrics.builder(checkout, "checkoutLatency").build();
    }
  }

  private static ConfigurableApplicationContext run(String... args) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .run(
            java.util.stream.Stream.concat(
                    java.util.stream.Stream.of("--spring.main.banner-mode=off"),
                    java.util.Arrays.stream(args))
                .toArray(String[]::new));
  }

  @Test
  void theApplicationsBinding_isTheOnlyOne_andOtherWindowsAreStillBound() {
    try (ConfigurableApplicationContext context = run()) {
      context.getBean("checkout", RollingWindow.class).record(20_000_000);
      context.getBean("search", RollingWindow.class).record(30_000_000);
      String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
      assertThat(scrape)
          .containsPattern("ringtail_window_recorded_total\\{window=\"checkoutLatency\"\\} 1\\.0")
          .containsPattern("ringtail_window_recorded_total\\{window=\"search\"\\} 1\\.0")
          .doesNotContain("window=\"checkout\"");
    }
  }

  @Test
  void excludedWindows_areNotBound() {
    try (ConfigurableApplicationContext context = run("--ringtail.metrics.excluded=search")) {
      String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
      assertThat(scrape).contains("window=\"checkoutLatency\"").doesNotContain("window=\"search\"");
    }
  }
}
