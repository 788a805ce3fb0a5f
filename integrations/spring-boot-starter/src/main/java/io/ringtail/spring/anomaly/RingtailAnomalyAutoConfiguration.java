package io.ringtail.spring.anomaly;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.internal.Checks;
import io.ringtail.redis.RedisBackend;
import io.ringtail.spring.AlertScheduler;
import io.ringtail.spring.AlertThread;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.RingtailAutoConfiguration;
import io.ringtail.spring.RingtailEndpointSection;
import java.time.Duration;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Anomaly alerts on every endpoint of the observation windows ({@link EndpointAnomalies}: core
 * alert rules on one core monitor), when {@code ringtail.anomaly.enabled=true}: evaluated every
 * {@code ringtail.anomaly.interval} by an {@link AlertScheduler} on the starter's one alert thread
 * ({@link AlertThread}, {@code ringtail-alerts}; the scheduler is a bean named {@value #SCHEDULER},
 * define a bean of that name to drive evaluations yourself), events published as Spring application
 * events.
 *
 * <p>With fleet-wide observation windows each endpoint is evaluated by one instance, which posts
 * its states for the others ({@link FleetAnomalySharing}).
 *
 * <p>With fleet-wide observation windows (a {@link RedisBackend}) a fire is paged by one instance
 * only: the first to claim it from a fleet-wide rate limiter ({@code anomaly-pages}: one claim per
 * endpoint and measure per {@code ringtail.anomaly.fleet-dedupe}, on the Redis server's clock).
 */
@AutoConfiguration(
    after = RingtailAutoConfiguration.class,
    afterName = {
      "io.ringtail.spring.observation.RingtailObservationAutoConfiguration",
      "io.ringtail.spring.redis.RingtailRedisAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, ObservationHandler.class})
@ConditionalOnProperty(prefix = "ringtail.anomaly", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(RingtailAnomalyProperties.class)
public class RingtailAnomalyAutoConfiguration {
  /** The name of the scheduling bean: an application bean of this name replaces it. */
  public static final String SCHEDULER = "ringtailAnomalyScheduler";

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(ObservedWindows.class)
  EndpointAnomalies ringtailEndpointAnomalies(
      ObservedWindows windows,
      RingtailAnomalyProperties properties,
      ObjectProvider<EndpointAnomalies.Pager> pager,
      ObjectProvider<AnomalySharing> sharing,
      ApplicationEventPublisher publisher,
      ObjectProvider<MeterRegistry> registry) {
    return new EndpointAnomalies(
        windows::windows,
        properties,
        pager.getIfAvailable(EndpointAnomalies.Pager::always),
        publisher::publishEvent,
        registry.getIfUnique(),
        sharing.getIfAvailable(() -> AnomalySharing.IN_PROCESS));
  }

  /** The alerts' section of the {@code ringtail} Actuator endpoint: {@code anomalies}. */
  @Bean
  @ConditionalOnBean(EndpointAnomalies.class)
  RingtailEndpointSection ringtailAnomalySection(EndpointAnomalies anomalies) {
    return new AnomalySection(anomalies);
  }

  @Bean(SCHEDULER)
  @ConditionalOnMissingBean(name = SCHEDULER)
  @ConditionalOnBean(EndpointAnomalies.class)
  AlertScheduler ringtailAnomalyScheduler(
      EndpointAnomalies anomalies, AlertThread thread, RingtailAnomalyProperties properties) {
    Duration interval = properties.getInterval();
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw Checks.invalid("ringtail.anomaly.interval", "positive", interval);
    }
    return new AlertScheduler(
        anomalies.monitor(), anomalies::evaluate, thread.scheduler(), interval);
  }

  /** The fleet's pager, when the observation windows are fleet-wide. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisBackend.class)
  @ConditionalOnSingleCandidate(RedisBackend.class)
  @ConditionalOnProperty(prefix = "ringtail.observations", name = "fleet", matchIfMissing = true)
  static class Fleet {
    @Bean
    @ConditionalOnMissingBean
    EndpointAnomalies.Pager ringtailAnomalyPager(
        ObjectProvider<RedisBackend> backend, RingtailAnomalyProperties properties) {
      Duration dedupe = properties.getFleetDedupe();
      if (dedupe == null || dedupe.isNegative() || dedupe.isZero()) {
        throw Checks.invalid("ringtail.anomaly.fleet-dedupe", "positive", dedupe);
      }
      return new FleetPager(backend, dedupe);
    }

    @Bean
    @ConditionalOnMissingBean
    AnomalySharing ringtailAnomalySharing(
        ObjectProvider<RedisBackend> backend, RingtailAnomalyProperties properties) {
      return new FleetAnomalySharing(backend, properties.getInterval());
    }
  }

  /**
   * One page per endpoint and measure per dedupe period across the fleet: a claim is a request to a
   * fleet-wide rate limiter of limit 1, on the backend's server clock (measured at its first
   * reading). Built on first use.
   */
  static final class FleetPager implements EndpointAnomalies.Pager {
    private final ObjectProvider<RedisBackend> backend;
    private final Duration dedupe;
    private RateLimiter limiter; // guarded by this

    FleetPager(ObjectProvider<RedisBackend> backend, Duration dedupe) {
      this.backend = Objects.requireNonNull(backend, "backend");
      this.dedupe = dedupe;
    }

    /**
     * Whether this instance claimed the page; also true when Redis could not answer (the backend's
     * outage policy decided): two pages rather than none.
     */
    @Override
    public boolean claim(String key) {
      RateLimiter claims = limiter();
      RedisBackend b = backend.getObject();
      long outages = b.outageDecisions();
      if (claims.tryAcquire(key).allowed()) {
        return true;
      }
      return b.outageDecisions() != outages;
    }

    private synchronized RateLimiter limiter() {
      if (limiter == null) {
        RedisBackend b = backend.getObject();
        limiter =
            b.rateLimiter(
                "anomaly-pages",
                RateLimitConfig.builder()
                    .limit(1)
                    .window(dedupe)
                    .timeSource(b.serverClock())
                    .build());
      }
      return limiter;
    }
  }
}
