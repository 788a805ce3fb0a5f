package io.ringtail.spring.redis;

import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Fails the start when {@code ringtail.redis.enabled=true} but the class path lacks what the Redis
 * backend is built from ({@code ringtail-redis}, Spring Data Redis, Lettuce, Spring Boot's Data
 * Redis auto-configuration), naming each missing artifact: without it {@link
 * RingtailRedisAutoConfiguration} would back off and every limit would be decided in each
 * instance's memory, a fleet limit silently multiplied by the number of instances. Backs off when
 * the application defines its own {@code RedisBackend} bean (it needs no Spring Data Redis then).
 */
@AutoConfiguration(before = RingtailRedisAutoConfiguration.class)
@ConditionalOnProperty(prefix = "ringtail.redis", name = "enabled", havingValue = "true")
@ConditionalOnMissingBean(type = "io.ringtail.redis.RedisBackend")
@Conditional(RingtailRedisRequirementsAutoConfiguration.OnMissingPieces.class)
public class RingtailRedisRequirementsAutoConfiguration {

  /** A piece the backend needs: a class it is recognised by, and the artifact that brings it. */
  private record Piece(String artifact, String... classes) {}

  private static final List<Piece> PIECES =
      List.of(
          new Piece("io.ringtail:ringtail-redis", "io.ringtail.redis.RedisBackend"),
          new Piece(
              "org.springframework.boot:spring-boot-starter-data-redis",
              "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory"),
          new Piece("io.lettuce:lettuce-core", "io.lettuce.core.RedisClient"),
          // Boot 4's module or Boot 3.5's class: either configures the LettuceConnectionFactory
          new Piece(
              "org.springframework.boot:spring-boot-starter-data-redis",
              "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
              "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"));

  RingtailRedisRequirementsAutoConfiguration(ConfigurableListableBeanFactory beans) {
    throw new IllegalStateException(message(missing(beans.getBeanClassLoader())));
  }

  /** The artifacts whose classes {@code loader} cannot load, each named once. */
  static List<String> missing(ClassLoader loader) {
    List<String> missing = new ArrayList<>();
    for (Piece p : PIECES) {
      boolean present = false;
      for (String c : p.classes()) {
        present |= ClassUtils.isPresent(c, loader);
      }
      if (!present && !missing.contains(p.artifact())) {
        missing.add(p.artifact());
      }
    }
    return missing;
  }

  static String message(List<String> missing) {
    return "ringtail.redis.enabled=true needs "
        + String.join(" and ", missing)
        + " on the class path (the Redis backend is built from ringtail-redis and Spring Data"
        + " Redis on Lettuce); without them every limit and window would stay in each instance's"
        + " memory. Add the missing dependencies, or set ringtail.redis.enabled=false";
  }

  /** Matches when a piece is missing. */
  static final class OnMissingPieces extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      List<String> missing = missing(context.getClassLoader());
      return missing.isEmpty()
          ? ConditionOutcome.noMatch("the Redis backend's classes are present")
          : ConditionOutcome.match("missing " + missing);
    }
  }
}
