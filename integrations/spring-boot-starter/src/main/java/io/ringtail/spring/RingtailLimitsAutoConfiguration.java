package io.ringtail.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.micrometer.DecisionMetrics;
import io.ringtail.redis.RedisBackend;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.web.server.WebFilter;

/**
 * HTTP limits by configuration ({@code ringtail.limits.<name>.*}): a servlet filter for Spring MVC
 * ({@link RingtailLimitFilter}) or a web filter for WebFlux ({@link RingtailLimitWebFilter}) over
 * one engine. The decisions are fleet-wide in Redis when the context has a single {@link
 * RedisBackend} bean (the starter's, with {@code ringtail.redis.enabled=true}, or the
 * application's), in-process otherwise; their counts are published as {@code ringtail.decisions}
 * meters tagged with each limit's name unless {@code ringtail.metrics.enabled=false}. Nothing is
 * configured while no limit is.
 */
@AutoConfiguration(after = RingtailRedisAutoConfiguration.class)
@ConditionalOnWebApplication
@Conditional(RingtailLimitsAutoConfiguration.OnLimits.class)
@EnableConfigurationProperties({RingtailLimitProperties.class, RingtailProperties.class})
public class RingtailLimitsAutoConfiguration {

  @Bean
  HttpLimits ringtailHttpLimits(
      RingtailLimitProperties properties, ObjectProvider<LimitDecisions> decisions) {
    return new HttpLimits(
        properties.getLimits(), decisions.getIfAvailable(LimitDecisions::inProcess));
  }

  /** The decisions in Redis, when there is a backend. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisBackend.class)
  @ConditionalOnSingleCandidate(RedisBackend.class)
  @Conditional(OnLimits.class) // also when a scan finds it
  static class Redis {
    @Bean
    @ConditionalOnMissingBean
    LimitDecisions ringtailRedisLimitDecisions(
        RedisBackend backend, RingtailProperties properties) {
      return new RedisLimitDecisions(backend, properties.getRedis().getOutageRetryAfter());
    }
  }

  /** Spring MVC. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(name = "jakarta.servlet.Filter")
  @Conditional(OnLimits.class) // also when a scan finds it
  static class Servlet {
    @Bean
    @ConditionalOnMissingBean
    RingtailLimitFilter ringtailLimitFilter(HttpLimits ringtailHttpLimits) {
      return new RingtailLimitFilter(ringtailHttpLimits);
    }
  }

  /** Spring WebFlux. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnClass(WebFilter.class)
  @Conditional(OnLimits.class) // also when a scan finds it
  static class Reactive {
    @Bean
    @ConditionalOnMissingBean
    RingtailLimitWebFilter ringtailLimitWebFilter(HttpLimits ringtailHttpLimits) {
      return new RingtailLimitWebFilter(ringtailHttpLimits);
    }
  }

  /** The limits' decision meters, as the starter publishes decision beans'. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, DecisionMetrics.class})
  @ConditionalOnProperty(prefix = "ringtail.metrics", name = "enabled", matchIfMissing = true)
  @Conditional(OnLimits.class) // also when a scan finds it
  static class Metrics {
    @Bean
    MeterBinder ringtailLimitMetrics(HttpLimits ringtailHttpLimits) {
      return registry ->
          ringtailHttpLimits
              .decisions()
              .forEach((name, decision) -> DecisionMetrics.of(decision, name).bindTo(registry));
    }
  }

  /** Matches when at least one {@code ringtail.limits.<name>} entry is configured. */
  static final class OnLimits extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      boolean any =
          Binder.get(context.getEnvironment())
              .bind(
                  "ringtail.limits",
                  Bindable.mapOf(String.class, RingtailLimitProperties.Limit.class))
              .map(m -> !m.isEmpty())
              .orElse(false);
      return any
          ? ConditionOutcome.match("ringtail.limits has entries")
          : ConditionOutcome.noMatch("no ringtail.limits entry");
    }
  }
}
