package io.ringtail.spring.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.internal.Checks;
import io.ringtail.micrometer.WindowMetrics;
import io.ringtail.prometheus.WindowHistograms;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.spring.RingtailAutoConfiguration;
import io.ringtail.spring.RingtailProperties;
import io.ringtail.spring.SharedTiming;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Ringtail's meters and the rolling windows of the application's observations: binds every window
 * bean to the application's {@link MeterRegistry} ({@link RingtailMeterBinder}), their histograms
 * to the Prometheus registry ({@link RingtailHistograms}), and times the observations named by
 * {@code ringtail.observations.names} into {@link ObservationWindows}, fleet-wide when the Redis
 * backend's auto-configuration (which runs first) made a {@link RedisBackend}. Each bean backs off
 * when the application defines one of the same type.
 */
@AutoConfiguration(
    after = RingtailAutoConfiguration.class,
    afterName = "io.ringtail.spring.redis.RingtailRedisAutoConfiguration")
@EnableConfigurationProperties(RingtailProperties.class)
public class RingtailObservationAutoConfiguration {

  /** Metrics, when Micrometer and the Ringtail binding are on the classpath. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, WindowMetrics.class})
  @ConditionalOnProperty(prefix = "ringtail.metrics", name = "enabled", matchIfMissing = true)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    RingtailMeterBinder ringtailMeterBinder(
        ListableBeanFactory beans, WindowConventions conventions, RingtailProperties properties) {
      return new RingtailMeterBinder(beans, conventions, properties.getMetrics().getExcluded());
    }
  }

  /**
   * Histograms since creation of the window beans that keep one, in the Prometheus registry, when
   * {@code ringtail-prometheus} and a {@link PrometheusRegistry} (Spring Boot's, with Micrometer's
   * Prometheus registry) are present.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({PrometheusRegistry.class, WindowHistograms.class})
  @ConditionalOnProperty(prefix = "ringtail.metrics", name = "enabled", matchIfMissing = true)
  static class Histograms {
    @Bean
    @ConditionalOnMissingBean
    RingtailHistograms ringtailHistograms(
        ListableBeanFactory beans,
        ObjectProvider<PrometheusRegistry> registry,
        WindowConventions conventions,
        RingtailProperties properties) {
      return new RingtailHistograms(
          beans, registry::getIfAvailable, properties.getMetrics().getExcluded(), conventions);
    }
  }

  /**
   * Rolling windows of the application's observations, when Micrometer is present: fleet-wide when
   * there is a {@link RedisBackend} (unless {@code ringtail.observations.fleet=false}), in-process
   * otherwise.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, ObservationHandler.class, WindowMetrics.class})
  @ConditionalOnProperty(prefix = "ringtail.observations", name = "enabled", matchIfMissing = true)
  static class Observations {
    @Bean
    @ConditionalOnMissingBean
    ObservationWindows ringtailObservationWindows(
        RingtailProperties properties,
        WindowConventions conventions,
        ObjectProvider<SharedTiming> sharing) {
      RingtailProperties.Observations o = properties.getObservations();
      WindowConfig window = windowOf(o);
      if (o.isCumulativeHistogram()) {
        window = window.toBuilder().cumulativeHistogram(true).build();
      }
      // built once the singletons exist, so that what shares their timing is known
      ObservationWindows windows =
          new ObservationWindows(
              o.getNames(),
              o.getIgnoredTags(),
              ObservationWindows.inProcess(window, o.getMaximumKeys(), TimeSource.system()),
              o.getMaximumKeys(),
              conventions,
              TimeSource.system(),
              keyed -> {},
              ObservationWindows.Meters.OWN);
      windows.sharing(() -> sharing.orderedStream().toList());
      return windows;
    }

    static WindowConfig windowOf(RingtailProperties.Observations o) {
      try {
        return WindowConfig.builder().length(o.getWindow()).buckets(o.getBuckets()).build();
      } catch (IllegalArgumentException e) {
        throw Checks.atProperty("ringtail.observations.window and .buckets", e);
      }
    }

    /**
     * One {@link RedisKeyedHistogramWindows} per observation, named after it, on the backend: every
     * instance of the application records into the same windows and its gauges read them. Processed
     * before the in-process bean above, which then backs off.
     *
     * <p>The backend is looked up when the windows are built (once the singletons exist), not when
     * this handler is: the {@code ObservationRegistry} needs its handlers, and the Redis client
     * under the backend needs the registry. The handler is still closed before the backend.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisBackend.class)
    @ConditionalOnSingleCandidate(RedisBackend.class)
    @ConditionalOnProperty(prefix = "ringtail.observations", name = "fleet", matchIfMissing = true)
    static class Fleet {
      static final String BEAN = "ringtailFleetObservationWindows";

      @Bean(BEAN)
      @ConditionalOnMissingBean
      ObservationWindows ringtailFleetObservationWindows(
          ObjectProvider<RedisBackend> backend,
          ConfigurableListableBeanFactory beans,
          RingtailProperties properties,
          WindowConventions conventions,
          ObjectProvider<SharedTiming> sharing) {
        for (String name : beans.getBeanNamesForType(RedisBackend.class, true, false)) {
          beans.registerDependentBean(name, BEAN);
        }
        RingtailProperties.Observations o = properties.getObservations();
        WindowConfig window = windowOf(o);
        ObservationWindows windows =
            new ObservationWindows(
                o.getNames(),
                o.getIgnoredTags(),
                name -> builder(backend.getObject(), name, window, o).build(),
                o.getMaximumKeys(),
                conventions,
                TimeSource.system(),
                keyed -> ((RedisKeyedHistogramWindows) keyed).close(),
                (name, keyed, prefix, c, maximumKeys) ->
                    FleetMeters.of(
                        (RedisKeyedHistogramWindows) keyed,
                        name,
                        prefix,
                        ObservationWindows::tagsOf,
                        c,
                        maximumKeys));
        windows.sharing(() -> sharing.orderedStream().toList());
        return windows;
      }

      @Bean
      FleetWindowsCloser ringtailFleetObservationWindowsCloser(
          ConfigurableListableBeanFactory beans) {
        return new FleetWindowsCloser(beans);
      }

      private static RedisKeyedHistogramWindows.Builder builder(
          RedisBackend backend,
          String name,
          WindowConfig window,
          RingtailProperties.Observations o) {
        RedisKeyedHistogramWindows.Builder builder =
            backend.keyedHistogramWindows(name).config(window).maximumKeys(o.getMaximumKeys());
        try {
          return builder.publishInterval(o.getPublishInterval());
        } catch (IllegalArgumentException e) {
          throw Checks.atProperty("ringtail.observations.publish-interval", e);
        }
      }
    }
  }

  /**
   * Closes the fleet observation windows when the context stops: after the web server (so requests
   * still in flight are recorded) and before the Redis client (Spring Data Redis stops its Lettuce
   * client in phase 0, before any bean is destroyed), so what they hold is published.
   */
  static final class FleetWindowsCloser implements SmartLifecycle {
    private final ConfigurableListableBeanFactory beans;
    private volatile boolean running;

    FleetWindowsCloser(ConfigurableListableBeanFactory beans) {
      this.beans = beans;
    }

    @Override
    public void start() {
      running = true;
    }

    @Override
    public void stop() {
      running = false;
      if (beans.getSingleton(Observations.Fleet.BEAN) instanceof ObservationWindows windows) {
        windows.close();
      }
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    /** Below the web server's stop phases, above Lettuce's. */
    @Override
    public int getPhase() {
      return SmartLifecycle.DEFAULT_PHASE - 4096;
    }
  }
}
