package io.ringtail.redis.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects a shared standalone {@link RedisProcess} or a shared {@link LocalRedisCluster} into
 * test methods and lifecycle methods. Each is started on first use and killed when the JUnit run
 * ends (AutoCloseable values of the root store are closed by JUnit). Tests that kill or pause a
 * server start their own {@link RedisProcess} instead of using the shared one.
 */
public final class RedisExtension implements ParameterResolver {
  private static final Namespace NS = Namespace.create(RedisExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    Class<?> type = p.getParameter().getType();
    return type == RedisProcess.class || type == LocalRedisCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    ExtensionContext.Store store = e.getRoot().getStore(NS);
    if (p.getParameter().getType() == RedisProcess.class) {
      return store.getOrComputeIfAbsent("standalone", k -> RedisProcess.start(), RedisProcess.class);
    }
    return store.getOrComputeIfAbsent("cluster", k -> LocalRedisCluster.start(), LocalRedisCluster.class);
  }
}
