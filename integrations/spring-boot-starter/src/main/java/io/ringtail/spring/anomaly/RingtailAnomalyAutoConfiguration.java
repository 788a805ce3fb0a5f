package io.ringtail.spring.anomaly;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.StateBoard;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.RingtailAutoConfiguration;
import io.ringtail.spring.RingtailEndpointSection;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Anomaly alerts on every endpoint of the observation windows ({@link EndpointAnomalies}), when
 * {@code ringtail.anomaly.enabled=true}: evaluated every {@code ringtail.anomaly.interval} on a
 * thread of their own ({@code ringtail-anomaly}, a bean named {@value #SCHEDULER}; define a bean of
 * that name to drive evaluations yourself), events published as Spring application events.
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
      ObjectProvider<EndpointAnomalies.Sharing> sharing,
      ApplicationEventPublisher publisher,
      ObjectProvider<MeterRegistry> registry) {
    return new EndpointAnomalies(
        windows::windows,
        properties,
        pager.getIfAvailable(EndpointAnomalies.Pager::always),
        publisher::publishEvent,
        registry.getIfUnique(),
        sharing.getIfAvailable(() -> EndpointAnomalies.Sharing.IN_PROCESS));
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
  Scheduler ringtailAnomalyScheduler(
      EndpointAnomalies anomalies, RingtailAnomalyProperties properties) {
    return new Scheduler(anomalies, properties.getInterval());
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
    EndpointAnomalies.Sharing ringtailAnomalySharing(
        ObjectProvider<RedisBackend> backend, RingtailAnomalyProperties properties) {
      return new FleetSharing(backend, properties.getInterval());
    }
  }

  /**
   * Each endpoint evaluated once for the fleet: the fleet's summaries read, the evaluator being the
   * owner of the endpoint's first key, the states posted to one {@link StateBoard} per observation
   * ({@code anomaly:<observation>}), kept an hour (at least ten evaluations) after the last post.
   */
  static final class FleetSharing implements EndpointAnomalies.Sharing {
    private final ObjectProvider<RedisBackend> backend;
    private final Duration ttl;
    private final Map<String, StateBoard> boards = new ConcurrentHashMap<>();

    FleetSharing(ObjectProvider<RedisBackend> backend, Duration interval) {
      this.backend = Objects.requireNonNull(backend, "backend");
      Duration tenEvaluations = interval == null ? Duration.ZERO : interval.multipliedBy(10);
      this.ttl =
          tenEvaluations.compareTo(Duration.ofHours(1)) > 0 ? tenEvaluations : Duration.ofHours(1);
    }

    @Override
    public Map<String, ? extends WindowSnapshot> read(KeyedWindows keyed) {
      return keyed instanceof RedisKeyedHistogramWindows fleet
          ? fleet.summaries()
          : keyed.snapshots();
    }

    @Override
    public boolean evaluates(KeyedWindows keyed, String key) {
      return !(keyed instanceof RedisKeyedHistogramWindows fleet) || fleet.owns(key);
    }

    @Override
    public void post(String observation, Map<String, String> states) {
      board(observation).post(states);
    }

    @Override
    public Map<String, String> posted(String observation) {
      return board(observation).read();
    }

    private StateBoard board(String observation) {
      return boards.computeIfAbsent(
          observation, o -> backend.getObject().stateBoard("anomaly:" + o, ttl));
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

  /**
   * Evaluates the alerts every interval while the context runs, on a daemon thread of its own (not
   * a scheduler bean, so Boot's own {@code taskScheduler} still backs the application's).
   * Thread-safe.
   */
  static final class Scheduler implements SmartLifecycle {
    private final EndpointAnomalies anomalies;
    private final long intervalNanos;
    private ScheduledExecutorService executor; // guarded by this

    Scheduler(EndpointAnomalies anomalies, Duration interval) {
      this.anomalies = anomalies;
      if (interval == null || interval.isNegative() || interval.isZero()) {
        throw Checks.invalid("ringtail.anomaly.interval", "positive", interval);
      }
      this.intervalNanos = interval.toNanos();
    }

    @Override
    public synchronized void start() {
      if (executor == null) {
        executor =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "ringtail-anomaly");
                  t.setDaemon(true);
                  return t;
                });
        executor.scheduleAtFixedRate(
            anomalies::evaluate, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
      }
    }

    @Override
    public synchronized void stop() {
      if (executor != null) {
        executor.shutdownNow();
        executor = null;
      }
    }

    @Override
    public synchronized boolean isRunning() {
      return executor != null;
    }
  }
}
