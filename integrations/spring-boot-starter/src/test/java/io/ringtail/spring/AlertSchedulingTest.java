package io.ringtail.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** An alert rule must not take the application's {@code @Scheduled} jobs over. */
class AlertSchedulingTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableScheduling
  static class App {
    final CompletableFuture<String> jobThread = new CompletableFuture<>();

    @Bean
    RollingWindow checkout() {
      return RollingWindow.create(WindowConfig.builder().length(Duration.ofMinutes(1)).build());
    }

    @Bean
    AlertRule busy(RollingWindow checkout) {
      return AlertRule.threshold("busy", checkout, Measure.count()).atLeast(1).build();
    }

    @Scheduled(fixedDelay = 50)
    void job() {
      jobThread.complete(Thread.currentThread().getName());
    }
  }

  @Test
  void withAnAlertRule_scheduledMethodsStillRunOnBootsTaskScheduler() throws Exception {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .run("--spring.main.banner-mode=off", "--ringtail.alerts.interval=1h")) {
      assertThat(context.containsBean("taskScheduler")).isTrue();
      String thread = context.getBean(App.class).jobThread.get(30, TimeUnit.SECONDS);
      assertThat(thread).startsWith("scheduling-").doesNotContain("ringtail");
      AlertScheduler alerts = context.getBean(AlertScheduler.class);
      assertThat(alerts.isRunning()).isTrue();
      assertThat(alerts.monitor().rules()).extracting(AlertRule::name).containsExactly("busy");
    }
  }

  @Test
  void theAlertThread_endsWithTheContext() throws Exception {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .run("--spring.main.banner-mode=off", "--ringtail.alerts.interval=1h");
    AlertScheduler alerts = context.getBean(AlertScheduler.class);
    Thread thread =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("ringtail-alerts"))
            .findFirst()
            .orElseThrow();
    context.close();
    assertThat(alerts.isRunning()).isFalse();
    thread.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(thread.isAlive()).isFalse();
  }
}
