package io.ringtail.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertEvent;
import io.ringtail.alert.AlertListener;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the root auto-configuration gives every part of the starter: {@link AlertRule} beans
 * evaluated on a managed scheduler, backing off for the application's own monitor.
 */
class RingtailAutoConfigurationTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).stripes(1).build();
  static final ManualTimeSource TIME = new ManualTimeSource(1_000_000_000_000L);

  private final ApplicationContextRunner withMicrometer =
      new ApplicationContextRunner()
          .withConfiguration(
              BootAutoConfigurations.of(
                  new String[][] {
                    BootAutoConfigurations.METRICS,
                    BootAutoConfigurations.SIMPLE_EXPORT,
                    BootAutoConfigurations.COMPOSITE_REGISTRY
                  },
                  RingtailAutoConfiguration.class));

  @Configuration(proxyBeanMethods = false)
  static class Windows {
    @Bean
    RollingWindow checkout() {
      return RollingWindow.create(CONFIG, TIME);
    }

    @Bean
    KeyedWindows perTenant() {
      return KeyedWindows.builder().window(CONFIG).timeSource(TIME).build();
    }
  }

  static final List<AlertEvent> EVENTS = new CopyOnWriteArrayList<>();

  @Configuration(proxyBeanMethods = false)
  static class Alerts {
    @Bean
    AlertRule slowCheckout(RollingWindow checkout) {
      return AlertRule.threshold("slow-checkout", checkout, Measure.percentile(95))
          .above(30_000_000)
          .build();
    }

    @Bean
    AlertListener collect() {
      return EVENTS::add;
    }
  }

  @Test
  void alertRuleBeans_runOnAManagedScheduler_andReachListenerBeans() {
    EVENTS.clear();
    withMicrometer
        .withUserConfiguration(Windows.class, Alerts.class)
        .withPropertyValues("ringtail.alerts.interval=1h")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(AlertMonitor.class)
                  .hasSingleBean(AlertScheduler.class);
              AlertMonitor monitor = context.getBean(AlertMonitor.class);
              assertThat(monitor.rules())
                  .extracting(AlertRule::name)
                  .containsExactly("slow-checkout");
              assertThat(context.getBean(AlertScheduler.class).isRunning()).isTrue();
              context.getBean("checkout", RollingWindow.class).record(50_000_000);
              monitor.evaluate(); // the hourly schedule would do the same
              assertThat(EVENTS)
                  .extracting(e -> e.rule().name() + " " + e.type())
                  .containsExactly("slow-checkout FIRED");
              AlertScheduler scheduler = context.getBean(AlertScheduler.class);
              context.close();
              assertThat(scheduler.isRunning()).isFalse();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnMonitor {
    @Bean
    AlertMonitor myMonitor() {
      return AlertMonitor.create();
    }
  }

  @Test
  void alerts_backOffForAnOwnMonitor_orWithoutRules_orWhenDisabled() {
    withMicrometer
        .withUserConfiguration(Windows.class, Alerts.class, OwnMonitor.class)
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(AlertMonitor.class)
                    .hasBean("myMonitor")
                    .doesNotHaveBean(AlertScheduler.class));
    withMicrometer
        .withUserConfiguration(Windows.class)
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(AlertMonitor.class)
                    .doesNotHaveBean(AlertScheduler.class));
    withMicrometer
        .withUserConfiguration(Windows.class, Alerts.class)
        .withPropertyValues("ringtail.alerts.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(AlertMonitor.class));
  }

  @Test
  void badAlertInterval_failsAtStartupByName() {
    withMicrometer
        .withUserConfiguration(Windows.class, Alerts.class)
        .withPropertyValues("ringtail.alerts.interval=0s")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessage("ringtail.alerts.interval must be positive, but was PT0S"));
  }
}
