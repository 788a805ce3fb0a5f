package io.ringtail.spring.redis;

import io.ringtail.redis.RedisBackend;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code ringtailRedis} health component ({@link RedisBackendHealthIndicator}) on Spring Boot
 * 4, whose health API moved to {@code org.springframework.boot.health}; on Boot 3.5 it backs off
 * and the backend's state shows in its meters only.
 */
@AutoConfiguration(after = RingtailRedisObservabilityAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.boot.health.contributor.HealthIndicator",
      "io.ringtail.redis.RedisBackend"
    })
@ConditionalOnBean({RedisBackend.class, RedisBackendEvents.class})
public class RingtailRedisHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "ringtailRedisHealthIndicator")
  RedisBackendHealthIndicator ringtailRedisHealthIndicator(RedisBackendEvents events) {
    return new RedisBackendHealthIndicator(events);
  }
}
