package io.ringtail.spring.slo;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.TimeSource;
import io.ringtail.redis.RedisBackend;
import io.ringtail.spring.SharedTiming;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Service levels declared by configuration ({@code ringtail.slo.<name>.*}, {@link
 * RingtailSloProperties}), when any is declared: the {@link ServiceLevels}, the observation handler
 * that records each matching request into them, their evaluation on a thread of their own with
 * {@link ServiceLevelAlertEvent}s, and their meters. Fleet-wide when the application has a {@link
 * RedisBackend} ({@code ringtail.redis.enabled=true}), in-process otherwise. A bad declaration
 * fails the start, naming the property.
 */
@AutoConfiguration(afterName = "io.ringtail.spring.redis.RingtailRedisAutoConfiguration")
@ConditionalOnClass(ObservationHandler.class)
@Conditional(RingtailSloAutoConfiguration.OnDeclared.class)
@EnableConfigurationProperties(RingtailSloProperties.class)
public class RingtailSloAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ServiceLevels ringtailServiceLevels(
      RingtailSloProperties properties,
      BeanFactory beans,
      ObjectProvider<Scope> fleet,
      ApplicationEventPublisher publisher) {
    TimeSource given = timeSource(beans);
    TimeSource clock = given == null ? TimeSource.system() : given;
    Scope scope = fleet.getIfAvailable(() -> Scope.inProcess(clock));
    return new ServiceLevels(Declared.of(properties), scope, clock, publisher::publishEvent);
  }

  /** The {@value ServiceLevels#TIME_SOURCE} bean, or null. */
  static TimeSource timeSource(BeanFactory beans) {
    return beans.containsBean(ServiceLevels.TIME_SOURCE)
        ? beans.getBean(ServiceLevels.TIME_SOURCE, TimeSource.class)
        : null;
  }

  @Bean
  SloObservationHandler ringtailSloObservationHandler(ServiceLevels ringtailServiceLevels) {
    return new SloObservationHandler(ringtailServiceLevels);
  }

  /** Shares the observation windows' timing, where they time the same observations. */
  @Bean
  SharedTiming ringtailSloSharedTiming(ServiceLevels ringtailServiceLevels) {
    return new SharedSlo(ringtailServiceLevels);
  }

  @Bean
  SloLifecycle ringtailSloLifecycle(ServiceLevels ringtailServiceLevels) {
    return new SloLifecycle(ringtailServiceLevels);
  }

  /** The {@code ringtail_slo_*} meters, with Micrometer. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @Conditional(OnDeclared.class) // also where a component scan finds it alone
  static class Meters {
    @Bean
    SloMeters ringtailSloMeters(ServiceLevels ringtailServiceLevels) {
      return new SloMeters(ringtailServiceLevels);
    }
  }

  /** Fleet-wide service levels, when the application has one Redis backend. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisBackend.class)
  @ConditionalOnSingleCandidate(RedisBackend.class)
  @Conditional(OnDeclared.class) // also where a component scan finds it alone
  static class Fleet {
    @Bean
    Scope ringtailSloFleetScope(ObjectProvider<RedisBackend> backend, BeanFactory beans) {
      TimeSource time = timeSource(beans);
      return new FleetScope(backend::getObject, time, time == null ? TimeSource.system() : time);
    }
  }

  /** Matches when any {@code ringtail.slo.*} property is set. */
  static final class OnDeclared extends SpringBootCondition {
    private static final ConfigurationPropertyName PREFIX =
        ConfigurationPropertyName.of("ringtail.slo");

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      for (ConfigurationPropertySource source :
          ConfigurationPropertySources.get(context.getEnvironment())) {
        if (source.containsDescendantOf(PREFIX) == ConfigurationPropertyState.PRESENT) {
          return ConditionOutcome.match("ringtail.slo.* properties are set");
        }
      }
      return ConditionOutcome.noMatch("no ringtail.slo.* property is set");
    }
  }
}
