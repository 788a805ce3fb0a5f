package io.ringtail.spring.redis;

import io.ringtail.internal.Checks;
import io.ringtail.redis.OutagePolicy;
import io.ringtail.redis.RedisBackend;
import io.ringtail.spring.RingtailProperties;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Builds a {@link RedisBackend} on the application's Lettuce client (the one Spring Data Redis
 * configured from {@code spring.data.redis.*}: host, credentials, TLS, cluster or sentinel) when
 * {@code ringtail.redis.enabled=true}. The backend gets a connection of its own from that client,
 * closed with the context; every Ringtail call on it is bounded by {@code
 * ringtail.redis.command-timeout}. Backs off when the application defines a {@code RedisBackend}
 * bean.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
    })
@ConditionalOnClass({RedisBackend.class, LettuceConnectionFactory.class})
@ConditionalOnProperty(prefix = "ringtail.redis", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(RingtailProperties.class)
public class RingtailRedisAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(RedisBackend.class)
  RingtailLettuceClient ringtailRedisConnection(ObjectProvider<RedisConnectionFactory> factories) {
    RedisConnectionFactory factory = factories.getIfUnique();
    if (!(factory instanceof LettuceConnectionFactory lettuce)) {
      throw new IllegalStateException(
          "ringtail.redis.enabled=true needs Spring Data Redis on Lettuce "
              + "(one LettuceConnectionFactory bean), but found "
              + factory);
    }
    if (!lettuce.isRunning()) {
      lettuce.start();
    }
    return new RingtailLettuceClient(lettuce);
  }

  @Bean
  @ConditionalOnMissingBean
  RedisBackend ringtailRedisBackend(
      RingtailLettuceClient connection, RingtailProperties properties) {
    RingtailProperties.Redis redis = properties.getRedis();
    RedisBackend.Builder builder =
        connection.cluster != null
            ? RedisBackend.builder(connection.cluster)
            : RedisBackend.builder(connection.standalone);
    return builder
        .keyPrefix(redis.getKeyPrefix())
        .commandTimeout(redis.getCommandTimeout())
        .outagePolicy(outagePolicy(redis.getOutagePolicy()))
        .outageRetryAfter(redis.getOutageRetryAfter())
        .build();
  }

  /** {@code ringtail.redis.outage-policy}: fail-closed, fail-open or throw, in any case. */
  static OutagePolicy outagePolicy(String value) {
    String name = value == null ? "" : value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (OutagePolicy p : OutagePolicy.values()) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw Checks.invalid("ringtail.redis.outage-policy", "fail-closed, fail-open or throw", value);
  }
}
