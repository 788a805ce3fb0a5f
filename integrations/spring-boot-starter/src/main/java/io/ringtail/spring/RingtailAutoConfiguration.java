package io.ringtail.spring;

import io.ringtail.WindowConventions;
import io.ringtail.alert.AlertEvent;
import io.ringtail.alert.AlertListener;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the starter's parts share: the settings {@code ringtail.*} ({@link RingtailProperties}), the
 * {@link WindowConventions} every binding follows, and the evaluation of {@link AlertRule} beans on
 * a scheduler the context manages ({@link AlertScheduler}, on the starter's one {@link
 * AlertThread}). Each bean backs off when the application defines one of the same type.
 */
@AutoConfiguration
@EnableConfigurationProperties(RingtailProperties.class)
public class RingtailAutoConfiguration {

  /**
   * The conventions every binding of the starter follows, from {@code ringtail.metrics.percentiles}
   * and {@code .maximum-keys}; define a {@link WindowConventions} bean to replace it.
   */
  @Bean
  @ConditionalOnMissingBean
  WindowConventions ringtailWindowConventions(RingtailProperties properties) {
    RingtailProperties.Metrics m = properties.getMetrics();
    try {
      return RingtailProperties.conventionsOf(m.getPercentiles(), m.getMaximumKeys());
    } catch (IllegalArgumentException e) {
      throw String.valueOf(e.getMessage()).startsWith("maximumKeys")
          ? Checks.asProperty("maximumKeys", "ringtail.metrics.maximum-keys", e)
          : Checks.asProperty("percentiles", "ringtail.metrics.percentiles", e);
    }
  }

  /**
   * The one thread every alert schedule of the starter runs on ({@code ringtail-alerts}); started
   * by the first schedule, ended when the context closes.
   */
  @Bean
  @ConditionalOnMissingBean
  AlertThread ringtailAlertThread() {
    return new AlertThread();
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
        AlertMonitor ringtailAlertMonitor, AlertThread thread, RingtailProperties properties) {
      return new AlertScheduler(
          ringtailAlertMonitor, thread.scheduler(), properties.getAlerts().getInterval());
    }
  }
}
