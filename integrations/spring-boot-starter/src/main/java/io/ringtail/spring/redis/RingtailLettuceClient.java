package io.ringtail.spring.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.tracing.Tracing;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Ringtail's own Lettuce client, made from the application's {@link LettuceConnectionFactory}: the
 * same server, sentinels or cluster, credentials, TLS and client options, and the same event loops
 * and timer, but without command tracing or command latency recording. Spring Boot's Lettuce
 * observations would otherwise wrap every limit decision and window read in an observation (about a
 * fifth of a decision's client-side work); Ringtail measures its own calls in its meters. The
 * application's own commands keep their observations.
 *
 * <p>A factory on a static master/replica configuration (never built by Spring Boot) is not
 * supported: its configuration is not readable from the factory.
 */
final class RingtailLettuceClient implements AutoCloseable {
  private final LettuceConnectionFactory factory;
  private final ClientResources resources;
  final StatefulRedisConnection<String, String> standalone;
  final StatefulRedisClusterConnection<String, String> cluster;

  /** Connects to what {@code application} connects to; {@code application} must be running. */
  RingtailLettuceClient(LettuceConnectionFactory application) {
    this.resources = untraced(application.getRequiredNativeClient().getResources());
    this.factory =
        new LettuceConnectionFactory(
            configuration(application),
            withResources(application.getClientConfiguration(), resources));
    try {
      factory.afterPropertiesSet();
      factory.start();
      AbstractRedisClient client = factory.getRequiredNativeClient();
      if (client instanceof RedisClusterClient c) {
        this.cluster = c.connect();
        this.standalone = null;
      } else {
        this.standalone = ((RedisClient) client).connect();
        this.cluster = null;
      }
    } catch (RuntimeException e) {
      factory.destroy();
      resources.shutdown(0, 0, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** The factory's target: cluster, sentinels, a Unix socket or one server. */
  static RedisConfiguration configuration(LettuceConnectionFactory f) {
    if (f.isClusterAware()) {
      return f.getClusterConfiguration();
    }
    if (f.isRedisSentinelAware()) {
      return f.getSentinelConfiguration();
    }
    if (f.getSocketConfiguration() != null) {
      return f.getSocketConfiguration();
    }
    return f.getStandaloneConfiguration();
  }

  /**
   * Resources sharing {@code shared}'s event loops, executor, timer, event bus, resolvers and
   * reconnect delay, with tracing and command latency recording off. All it holds is shared, so
   * shutting it down leaves {@code shared} running.
   */
  static ClientResources untraced(ClientResources shared) {
    return DefaultClientResources.builder()
        .eventLoopGroupProvider(shared.eventLoopGroupProvider())
        .eventExecutorGroup(shared.eventExecutorGroup())
        .timer(shared.timer())
        .eventBus(shared.eventBus())
        .socketAddressResolver(shared.socketAddressResolver())
        .addressResolverGroup(shared.addressResolverGroup())
        .nettyCustomizer(shared.nettyCustomizer())
        .reconnectDelay(shared::reconnectDelay)
        .commandLatencyRecorder(CommandLatencyRecorder.disabled())
        .tracing(Tracing.disabled())
        .build();
  }

  /** {@code c} with other client resources; not pooled (Ringtail holds one connection). */
  static LettuceClientConfiguration withResources(
      LettuceClientConfiguration c, ClientResources resources) {
    LettuceClientConfiguration.LettuceClientConfigurationBuilder b =
        LettuceClientConfiguration.builder();
    if (c.isUseSsl()) {
      LettuceClientConfiguration.LettuceSslClientConfigurationBuilder ssl =
          b.useSsl().verifyPeer(c.getVerifyMode());
      if (c.isStartTls()) {
        ssl.startTls();
      }
      b = ssl.and();
    }
    c.getClientOptions().ifPresent(b::clientOptions);
    c.getClientName().ifPresent(b::clientName);
    c.getReadFrom().ifPresent(b::readFrom);
    c.getRedisCredentialsProviderFactory().ifPresent(b::redisCredentialsProviderFactory);
    return b.clientResources(resources)
        .commandTimeout(c.getCommandTimeout())
        .shutdownTimeout(c.getShutdownTimeout())
        .shutdownQuietPeriod(c.getShutdownQuietPeriod())
        .build();
  }

  /** Closes the connection and the client; the shared event loops stay the application's. */
  @Override
  public void close() {
    try {
      if (standalone != null && standalone.isOpen()) {
        standalone.close();
      } else if (cluster != null && cluster.isOpen()) {
        cluster.close();
      }
    } finally {
      factory.destroy();
      resources.shutdown(0, 0, TimeUnit.SECONDS);
    }
  }
}
