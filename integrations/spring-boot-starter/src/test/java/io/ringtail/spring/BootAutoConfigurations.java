package io.ringtail.spring;

import java.util.Arrays;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configurations by role, under their Boot 4 names or, on Boot 3.5 (the
 * starter's {@code boot3} test leg), their Boot 3 ones: Boot 4 moved them to new modules.
 */
public final class BootAutoConfigurations {
  private BootAutoConfigurations() {}

  public static final String[] METRICS = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration"
  };
  public static final String[] SIMPLE_EXPORT = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
  };
  public static final String[] COMPOSITE_REGISTRY = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
  };
  public static final String[] DATA_REDIS = {
    "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
    "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
  };

  /**
   * Whether the Boot on the classpath is 4 (its health API is in org.springframework.boot.health).
   */
  public static boolean boot4() {
    return ClassUtils.isPresent(
        "org.springframework.boot.health.contributor.HealthIndicator", null);
  }

  /** The first class of each role present, with the given classes, as auto-configurations. */
  public static AutoConfigurations of(String[][] roles, Class<?>... ours) {
    Class<?>[] all = Arrays.copyOf(ours, ours.length + roles.length);
    for (int i = 0; i < roles.length; i++) {
      all[ours.length + i] = first(roles[i]);
    }
    return AutoConfigurations.of(all);
  }

  private static Class<?> first(String[] names) {
    for (String name : names) {
      if (ClassUtils.isPresent(name, null)) {
        return ClassUtils.resolveClassName(name, null);
      }
    }
    throw new IllegalStateException("none of " + Arrays.toString(names) + " is on the classpath");
  }
}
