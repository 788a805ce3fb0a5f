package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import io.ringtail.spring.AlertScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** The endpoint anomaly alerts run on the starter's one alert thread, beside the rule beans'. */
class AnomalySchedulingTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    RollingWindow checkout() {
      return RollingWindow.create(WindowConfig.builder().length(Duration.ofMinutes(1)).build());
    }

    @Bean
    AlertRule busy(RollingWindow checkout) {
      return AlertRule.threshold("busy", checkout, Measure.count()).atLeast(1).build();
    }
  }

  @Test
  void alertRuleBeansAndEndpointAnomalies_shareOneAlertThread() {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .run(
                "--spring.main.banner-mode=off",
                "--ringtail.alerts.interval=1h",
                "--ringtail.anomaly.enabled=true",
                "--ringtail.anomaly.interval=1h")) {
      Map<String, AlertScheduler> schedulers = context.getBeansOfType(AlertScheduler.class);
      assertThat(schedulers).hasSize(2);
      assertThat(schedulers.values()).allMatch(AlertScheduler::isRunning);
      assertThat(schedulers.get(RingtailAnomalyAutoConfiguration.SCHEDULER).monitor())
          .isSameAs(context.getBean(EndpointAnomalies.class).monitor());
      List<String> started =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> !before.contains(t))
              .map(Thread::getName)
              .filter(n -> n.startsWith("ringtail-al") || n.startsWith("ringtail-an"))
              .toList();
      assertThat(started).as("threads started for alerts").containsExactly("ringtail-alerts");
    }
  }

  @Test
  void aNonPositiveInterval_failsTheStartNamingTheProperty() {
    SpringApplicationBuilder app =
        new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE);
    assertThatThrownBy(
            () ->
                app.run(
                    "--spring.main.banner-mode=off",
                    "--ringtail.anomaly.enabled=true",
                    "--ringtail.anomaly.interval=0s"))
        .hasRootCauseMessage("ringtail.anomaly.interval must be positive, but was PT0S");
  }
}
