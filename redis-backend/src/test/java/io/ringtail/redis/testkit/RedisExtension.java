package io.ringtail.redis.testkit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ringtail.redis.RedisBackend;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Hands tests real Redis: a shared standalone {@link RedisProcess} or a shared {@link
 * LocalRedisCluster} (each started on first use and killed when the JUnit run ends), a ready {@link
 * RedisBackend} on its own new connection (configured by the test class's {@link BackendOptions}),
 * or {@link RedisCommands} (or a bare {@link StatefulRedisConnection}) on the standalone server for
 * inspecting what the library wrote. Backends and commands are closed, with their client, when the
 * method or class that asked for them is done. Tests that kill or pause a server start their own
 * {@link RedisProcess} instead. Thread-safe as JUnit uses it.
 */
public final class RedisExtension implements ParameterResolver {
  private static final Namespace NS = Namespace.create(RedisExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    Class<?> type = p.getParameter().getType();
    return type == RedisProcess.class
        || type == LocalRedisCluster.class
        || type == RedisBackend.class
        || type == RedisCommands.class
        || type == StatefulRedisConnection.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    Class<?> type = p.getParameter().getType();
    if (type == RedisProcess.class) {
      return standalone(e);
    }
    if (type == LocalRedisCluster.class) {
      return cluster(e);
    }
    BackendOptions options = options(e);
    Duration timeout = Duration.ofMillis(options.commandTimeoutMillis());
    if (type == RedisCommands.class) {
      return own(e, connectStandalone(e, timeout)).sync();
    }
    if (type == StatefulRedisConnection.class) {
      return own(e, connectStandalone(e, timeout));
    }
    if (options.cluster()) {
      RedisClusterClient client = cluster(e).newClient();
      client.setOptions(RedisBackend.failFastClusterClientOptions(timeout));
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      e.getStore(NS)
          .put(
              new Object(),
              (AutoCloseable)
                  () -> {
                    connection.close();
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                  });
      return RedisBackend.builder(connection)
          .commandTimeout(timeout)
          .outagePolicy(options.outagePolicy())
          .build();
    }
    return RedisBackend.builder(own(e, connectStandalone(e, timeout)))
        .commandTimeout(timeout)
        .outagePolicy(options.outagePolicy())
        .build();
  }

  private static RedisProcess standalone(ExtensionContext e) {
    return e.getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent("standalone", k -> RedisProcess.start(), RedisProcess.class);
  }

  private static LocalRedisCluster cluster(ExtensionContext e) {
    return e.getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent("cluster", k -> LocalRedisCluster.start(), LocalRedisCluster.class);
  }

  private static Connected connectStandalone(ExtensionContext e, Duration timeout) {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(timeout));
    return new Connected(client, client.connect(standalone(e).uri()));
  }

  private static StatefulRedisConnection<String, String> own(ExtensionContext e, Connected c) {
    e.getStore(NS).put(new Object(), c);
    return c.connection;
  }

  private static BackendOptions options(ExtensionContext e) {
    for (Optional<Class<?>> c = e.getTestClass();
        c.isPresent();
        c = Optional.ofNullable(c.get().getEnclosingClass())) {
      Optional<BackendOptions> found =
          AnnotationSupport.findAnnotation(c.get(), BackendOptions.class);
      if (found.isPresent()) {
        return found.get();
      }
    }
    return Defaults.class.getAnnotation(BackendOptions.class);
  }

  @BackendOptions
  private static final class Defaults {}

  private record Connected(RedisClient client, StatefulRedisConnection<String, String> connection)
      implements AutoCloseable {
    @Override
    public void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
