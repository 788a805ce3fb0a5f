package io.ringtail.spring.limit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.internal.Checks;
import io.ringtail.micrometer.DecisionMetrics;
import io.ringtail.redis.RedisBackend;
import io.ringtail.spring.RingtailProperties;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.convert.converter.Converter;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.classreading.CachingMetadataReaderFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.WebFilter;

/**
 * HTTP limits by configuration ({@code ringtail.limits.<name>.*}): a servlet filter for Spring MVC
 * ({@link RingtailLimitFilter}) or a web filter for WebFlux ({@link RingtailLimitWebFilter}) over
 * one engine. The decisions are fleet-wide in Redis when the context has a single {@link
 * RedisBackend} bean (the starter's, with {@code ringtail.redis.enabled=true}, or the
 * application's), in-process otherwise; their counts are published as {@code ringtail.decisions}
 * meters tagged with each limit's name unless {@code ringtail.metrics.enabled=false}. Handler
 * methods annotated {@link RingtailLimit} add their limits, built once every singleton (the handler
 * mappings among them) exists, before the server takes requests. Nothing is configured while no
 * limit is, by property or annotation.
 */
@AutoConfiguration(afterName = "io.ringtail.spring.redis.RingtailRedisAutoConfiguration")
@ConditionalOnWebApplication
@Conditional(RingtailLimitsAutoConfiguration.OnLimits.class)
@EnableConfigurationProperties({RingtailLimitProperties.class, RingtailProperties.class})
public class RingtailLimitsAutoConfiguration {
  private static final String MVC_MAPPING =
      "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping";
  private static final String MVC_HANDLER_MAPPING =
      "org.springframework.web.servlet.HandlerMapping";
  private static final String WEBFLUX_MAPPING =
      "org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping";

  @Bean
  HttpLimits ringtailHttpLimits(
      RingtailLimitProperties properties,
      ObjectProvider<LimitDecisions> decisions,
      ObjectProvider<AnnotatedLimits.Source> handlers,
      Environment environment) {
    Map<String, RingtailLimitProperties.Limit> configured = properties.getLimits();
    return new HttpLimits(
        configured,
        decisions.getIfAvailable(LimitDecisions::inProcess),
        () ->
            AnnotatedLimits.of(
                handlers.orderedStream().flatMap(s -> s.handlers().stream()).toList(),
                environment,
                configured.keySet()));
  }

  /** Reads {@code ringtail.limits.<name>.kind}, naming the kinds when it is none of them. */
  @Bean
  @ConfigurationPropertiesBinding
  static KindConverter ringtailLimitKindConverter() {
    return new KindConverter();
  }

  /**
   * A kind as Boot reads an enum (any case, {@code -} or {@code _}); an unknown one is an {@link
   * IllegalArgumentException} listing the kinds, which Boot's bind error puts under the property.
   */
  static final class KindConverter implements Converter<String, RingtailLimitProperties.Kind> {
    @Override
    public RingtailLimitProperties.Kind convert(String source) {
      String name = source.trim().replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
      for (RingtailLimitProperties.Kind k : RingtailLimitProperties.Kind.values()) {
        if (k.name().replace("_", "").toLowerCase(Locale.ROOT).equals(name)) {
          return k;
        }
      }
      throw Checks.invalid("kind", LimitSettings.KINDS, source);
    }
  }

  /**
   * Builds the annotated limits when every singleton exists: after the filter (which the web server
   * takes before the handler mappings exist), before the server takes requests.
   */
  @Bean
  SmartInitializingSingleton ringtailAnnotatedLimits(HttpLimits ringtailHttpLimits) {
    return ringtailHttpLimits::complete;
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
    RingtailLimitFilter ringtailLimitFilter(
        HttpLimits ringtailHttpLimits, ListableBeanFactory beans) {
      if (!ClassUtils.isPresent(MVC_HANDLER_MAPPING, null)) {
        return new RingtailLimitFilter(ringtailHttpLimits);
      }
      return new RingtailLimitFilter(
          ringtailHttpLimits, new HandlerMappings.MvcRoutes(beans)::mark);
    }

    @Bean
    @ConditionalOnClass(name = MVC_MAPPING)
    AnnotatedLimits.Source ringtailMvcHandlers(ListableBeanFactory beans) {
      return new HandlerMappings.Mvc(beans);
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
    RingtailLimitWebFilter ringtailLimitWebFilter(
        HttpLimits ringtailHttpLimits, ListableBeanFactory beans) {
      return new RingtailLimitWebFilter(
          ringtailHttpLimits, new HandlerMappings.WebFluxRoutes(beans)::mark);
    }

    @Bean
    @ConditionalOnClass(name = WEBFLUX_MAPPING)
    AnnotatedLimits.Source ringtailWebFluxHandlers(ListableBeanFactory beans) {
      return new HandlerMappings.WebFlux(beans);
    }
  }

  /**
   * The limits' decision meters, as the starter publishes decision beans', and per limit the
   * requests answered 503 ({@code ringtail.limits.unavailable}), which are no decision.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, DecisionMetrics.class})
  @ConditionalOnProperty(prefix = "ringtail.metrics", name = "enabled", matchIfMissing = true)
  @Conditional(OnLimits.class) // also when a scan finds it
  static class Metrics {
    @Bean
    MeterBinder ringtailLimitMetrics(HttpLimits ringtailHttpLimits) {
      return registry -> {
        ringtailHttpLimits
            .decisions()
            .forEach((name, decision) -> DecisionMetrics.of(decision, name).bindTo(registry));
        ringtailHttpLimits
            .unavailable()
            .forEach(
                (name, count) ->
                    FunctionCounter.builder("ringtail.limits.unavailable", count, LongAdder::sum)
                        .tag("limit", name)
                        .description(
                            "Requests answered 503 because the limit's decision could not be made")
                        .register(registry));
      };
    }
  }

  /**
   * Matches when at least one {@code ringtail.limits.<name>} entry is configured, or a bean
   * definition's class declares a {@link RingtailLimit} (read from class metadata: no bean is
   * created). Evaluated when beans are registered, so that {@code @Bean} controllers count.
   */
  static final class OnLimits extends SpringBootCondition implements ConfigurationCondition {
    @Override
    public ConfigurationPhase getConfigurationPhase() {
      return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      // bound as plain values: a bad one fails the start when the properties are bound, by name
      boolean any =
          Binder.get(context.getEnvironment())
              .bind("ringtail.limits", Bindable.mapOf(String.class, Object.class))
              .map(m -> !m.isEmpty())
              .orElse(false);
      if (any) {
        return ConditionOutcome.match("ringtail.limits has entries");
      }
      ConfigurableListableBeanFactory beans = context.getBeanFactory();
      if (beans != null
          && AnnotatedLimits.declared(
              beans, new CachingMetadataReaderFactory(context.getResourceLoader()))) {
        return ConditionOutcome.match("a bean's class declares @RingtailLimit");
      }
      return ConditionOutcome.noMatch("no ringtail.limits entry, no @RingtailLimit");
    }
  }
}
