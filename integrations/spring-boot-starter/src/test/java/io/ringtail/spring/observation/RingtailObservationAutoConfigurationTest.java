package io.ringtail.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.BootAutoConfigurations;
import io.ringtail.spring.RingtailAutoConfiguration;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Window beans bound to the application's registry by {@link RingtailObservationAutoConfiguration}:
 * under their bean names, at the conventions of {@code ringtail.metrics.*} or the application's,
 * not at all without Micrometer, when disabled or when the application binds its own.
 */
class RingtailObservationAutoConfigurationTest {
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
                  RingtailAutoConfiguration.class,
                  RingtailObservationAutoConfiguration.class));

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

  @Test
  void everyWindowBean_isBoundUnderItsBeanName_withGaugesAndCounters() {
    withMicrometer
        .withUserConfiguration(Windows.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(RingtailMeterBinder.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              RollingWindow checkout = context.getBean("checkout", RollingWindow.class);
              KeyedWindows perTenant = context.getBean(KeyedWindows.class);
              checkout.record(20_000_000);
              checkout.record(40_000_000);
              checkout.record(-1);
              perTenant.record("acme", 5_000_000);
              assertThat(
                      registry
                          .get("ringtail.window.samples")
                          .tag("window", "checkout")
                          .gauge()
                          .value())
                  .isEqualTo(2);
              assertThat(
                      registry
                          .get("ringtail.window.percentile")
                          .tag("window", "checkout")
                          .tag("phi", "0.95")
                          .timeGauge()
                          .value(java.util.concurrent.TimeUnit.MILLISECONDS))
                  .isCloseTo(40, org.assertj.core.api.Assertions.within(0.5));
              assertThat(
                      registry
                          .get("ringtail.window.recorded")
                          .tag("window", "checkout")
                          .functionCounter()
                          .count())
                  .isEqualTo(2);
              assertThat(
                      registry
                          .get("ringtail.window.rejections")
                          .tag("window", "checkout")
                          .functionCounter()
                          .count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("ringtail.keyed.keys")
                          .tag("window", "perTenant")
                          .gauge()
                          .value())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("ringtail.keyed.recorded")
                          .tag("window", "perTenant")
                          .tag("key", "acme")
                          .functionCounter()
                          .count())
                  .isEqualTo(1);
            });
  }

  @Test
  void percentilesProperty_isPublished_andABadOneFailsAtStartupByName() {
    withMicrometer
        .withUserConfiguration(Windows.class)
        .withPropertyValues("ringtail.metrics.percentiles=0.9,0.999")
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get("ringtail.window.percentile")
                          .tag("window", "checkout")
                          .timeGauges())
                  .extracting(g -> g.getId().getTag("phi"))
                  .containsExactlyInAnyOrder("0.9", "0.999");
            });
    withMicrometer
        .withUserConfiguration(Windows.class)
        .withPropertyValues("ringtail.metrics.percentiles=95")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "ringtail.metrics.percentiles must be fractions between 0 and 1 (0.95 for"
                            + " P95), but was 95.0"));
    withMicrometer
        .withUserConfiguration(Windows.class)
        .withPropertyValues("ringtail.metrics.maximum-keys=100001")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "ringtail.metrics.maximum-keys must be between 1 and 100000, but was"
                            + " 100001"));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnConventions {
    @Bean
    WindowConventions conventions() {
      return WindowConventions.builder().percentiles(0.75).build();
    }
  }

  @Test
  void ownConventions_replaceTheProperties() {
    withMicrometer
        .withUserConfiguration(Windows.class, OwnConventions.class)
        .withPropertyValues("ringtail.metrics.percentiles=0.9")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(MeterRegistry.class)
                            .get("ringtail.window.percentile")
                            .tag("window", "checkout")
                            .timeGauges())
                    .extracting(g -> g.getId().getTag("phi"))
                    .containsExactly("0.75"));
  }

  @Test
  void withoutMicrometer_theWindowsStillStart_andNothingIsBound() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                RingtailAutoConfiguration.class, RingtailObservationAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .withUserConfiguration(Windows.class)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(RingtailMeterBinder.class)
                    .hasBean("checkout"));
  }

  @Test
  void metricsDisabled_bindsNothing() {
    withMicrometer
        .withUserConfiguration(Windows.class)
        .withPropertyValues("ringtail.metrics.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(RingtailMeterBinder.class);
              assertThat(
                      context.getBean(MeterRegistry.class).find("ringtail.window.samples").gauge())
                  .isNull();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBinder {
    @Bean
    RingtailMeterBinder mine(org.springframework.beans.factory.ListableBeanFactory beans) {
      return new RingtailMeterBinder(beans, List.of(0.5), 10);
    }
  }

  @Test
  void ownBinder_replacesTheStarters() {
    withMicrometer
        .withUserConfiguration(Windows.class, OwnBinder.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(RingtailMeterBinder.class).hasBean("mine");
              assertThat(context.getBeansOfType(MeterBinder.class))
                  .containsKey("mine")
                  .doesNotContainKey("ringtailMeterBinder");
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .get("ringtail.window.percentile")
                          .tag("window", "checkout")
                          .timeGauges())
                  .hasSize(1);
            });
  }
}
