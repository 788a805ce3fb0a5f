package io.ringtail.spring.redis;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.redis.RedisBackend;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the {@link RedisBackend} bean visible: its breaker events ({@link RedisBackendEvents}), its
 * meters and its fleet windows' ({@link RedisBackendMetrics}). On Spring Boot 4 its health comes
 * from {@code RingtailRedisHealthAutoConfiguration} (the {@code ringtailRedis} component).
 */
@AutoConfiguration(after = RingtailRedisAutoConfiguration.class)
@ConditionalOnClass(RedisBackend.class)
@ConditionalOnBean(RedisBackend.class)
public class RingtailRedisObservabilityAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RedisBackendEvents ringtailRedisBackendEvents(RedisBackend backend) {
    return new RedisBackendEvents(backend);
  }

  /** Meters, when Micrometer is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnBean(RedisBackend.class)
  @ConditionalOnProperty(prefix = "ringtail.metrics", name = "enabled", matchIfMissing = true)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    RedisBackendMetrics ringtailRedisBackendMetrics(
        RedisBackendEvents events, ListableBeanFactory beans) {
      return new RedisBackendMetrics(events, beans);
    }
  }
}
