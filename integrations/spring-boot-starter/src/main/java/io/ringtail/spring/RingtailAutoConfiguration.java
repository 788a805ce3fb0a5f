package io.ringtail.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.alert.AlertEvent;
import io.ringtail.alert.AlertListener;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.micrometer.WindowMetrics;
import java.lang.System.Logger.Level;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Ringtail's Spring Boot auto-configuration: binds every window bean to the application's {@link
 * MeterRegistry} ({@link RingtailMeterBinder}) and evaluates {@link AlertRule} beans on a scheduler
 * the context manages ({@link AlertScheduler}). The Redis backend is configured by {@link
 * RingtailRedisAutoConfiguration}. Each bean backs off when the application defines one of the same
 * type.
 */
@AutoConfiguration
@EnableConfigurationProperties(RingtailProperties.class)
public class RingtailAutoConfiguration {

  /** Metrics, when Micrometer and the Ringtail binding are on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, WindowMetrics.class})
  @ConditionalOnProperty(prefix = "ringtail.metrics", name = "enabled", matchIfMissing = true)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    RingtailMeterBinder ringtailMeterBinder(
        ListableBeanFactory beans, RingtailProperties properties) {
      return new RingtailMeterBinder(
          beans,
          properties.getMetrics().getPercentiles(),
          properties.getMetrics().getMaximumKeys(),
          properties.getMetrics().getExcluded());
    }
  }

  /** Rolling windows of the application's observations, when Micrometer is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, ObservationHandler.class, WindowMetrics.class})
  @ConditionalOnProperty(prefix = "ringtail.observations", name = "enabled", matchIfMissing = true)
  static class Observations {
    @Bean
    @ConditionalOnMissingBean
    ObservationWindows ringtailObservationWindows(RingtailProperties properties) {
      RingtailProperties.Observations o = properties.getObservations();
      WindowConfig window;
      try {
        window = WindowConfig.builder().length(o.getWindow()).buckets(o.getBuckets()).build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "ringtail.observations.window and .buckets: " + e.getMessage(), e);
      }
      return new ObservationWindows(
          o.getNames(),
          o.getIgnoredTags(),
          window,
          o.getMaximumKeys(),
          properties.getMetrics().getPercentiles(),
          TimeSource.system());
    }
  }

  /** Alert evaluation, when the application declares AlertRule beans. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(AlertRule.class)
  @ConditionalOnMissingBean(AlertMonitor.class)
  @ConditionalOnProperty(prefix = "ringtail.alerts", name = "enabled", matchIfMissing = true)
  static class Alerts {
    private static final System.Logger LOG = System.getLogger(AlertMonitor.class.getName());

    @Bean
    AlertMonitor ringtailAlertMonitor(
        ObjectProvider<AlertRule> rules, ObjectProvider<AlertListener> listeners) {
      AlertMonitor monitor = AlertMonitor.create();
      rules.orderedStream().forEach(monitor::add);
      listeners.orderedStream().forEach(monitor::addListener);
      monitor.addListener(Alerts::log);
      return monitor;
    }

    private static void log(AlertEvent event) {
      LOG.log(Level.WARNING, event.toString());
    }

    @Bean
    AlertScheduler ringtailAlertScheduler(
        AlertMonitor ringtailAlertMonitor, RingtailProperties properties) {
      return new AlertScheduler(ringtailAlertMonitor, properties.getAlerts().getInterval());
    }
  }
}
