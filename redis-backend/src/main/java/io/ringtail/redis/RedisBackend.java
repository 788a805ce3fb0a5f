package io.ringtail.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.Objects;

/**
 * The front door to fleet-wide windows and decisions in Redis: it binds a Lettuce connection the
 * user owns (standalone or cluster), a command timeout and a circuit breaker, and builds
 * {@link RedisRollingWindow}s on them. The library opens no connection of its own and starts no
 * thread; closing the connection is the user's business.
 *
 * <p>Immutable and thread-safe; one backend may serve any number of windows and threads.
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create("redis://127.0.0.1");
 * client.setOptions(RedisBackend.failFastClientOptions(Duration.ofMillis(250)));
 * RedisBackend redis = RedisBackend.builder(client.connect()).build();
 * RedisRollingWindow logins = redis.window("failed-logins:alice").length(Duration.ofMinutes(1)).build();
 * }</pre>
 */
public final class RedisBackend {
  final ScriptRunner runner;
  final String keyPrefix;

  private RedisBackend(Builder b) {
    this.runner = new ScriptRunner(b.commands, b.breaker != null ? b.breaker : defaultBreaker(b.commandTimeout),
        b.commandTimeout);
    this.keyPrefix = b.keyPrefix;
  }

  /** A builder over a standalone (or Sentinel-managed) connection. */
  public static Builder builder(StatefulRedisConnection<String, String> connection) {
    return new Builder(Objects.requireNonNull(connection, "connection").async());
  }

  /** A builder over a Redis Cluster connection. */
  public static Builder builder(StatefulRedisClusterConnection<String, String> connection) {
    return new Builder(Objects.requireNonNull(connection, "connection").async());
  }

  /**
   * Lettuce options that fail fast instead of queueing: commands are rejected while disconnected,
   * the request queue is bounded, commands time out after {@code commandTimeout}, and nothing is
   * silently re-sent after a reconnect (this library replays what it buffered itself, idempotently).
   */
  public static ClientOptions failFastClientOptions(Duration commandTimeout) {
    return ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(100_000)
        .autoReconnect(true)
        .replayFilter(command -> true)
        .timeoutOptions(TimeoutOptions.enabled(requireTimeout(commandTimeout)))
        .build();
  }

  /** {@link #failFastClientOptions} for a {@code RedisClusterClient}. */
  public static ClusterClientOptions failFastClusterClientOptions(Duration commandTimeout) {
    return ClusterClientOptions.builder(failFastClientOptions(commandTimeout)).build();
  }

  /** The breaker guarding every call of this backend (to observe its state or events). */
  public CircuitBreaker circuitBreaker() {
    return runner.breaker();
  }

  /** Starts building a fleet-wide window named {@code name} (any non-empty string). */
  public RedisRollingWindow.Builder window(String name) {
    return new RedisRollingWindow.Builder(this, name);
  }

  static CircuitBreaker defaultBreaker(Duration timeout) {
    return CircuitBreaker.of("ringtail-redis", CircuitBreakerConfig.custom()
        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
        .slidingWindowSize(20)
        .minimumNumberOfCalls(5)
        .failureRateThreshold(50)
        .waitDurationInOpenState(Duration.ofSeconds(1))
        .permittedNumberOfCallsInHalfOpenState(2)
        .slowCallDurationThreshold(timeout)
        .writableStackTraceEnabled(false)
        .build());
  }

  static Duration requireTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "commandTimeout");
    if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalArgumentException("commandTimeout must be between 1 ns and 1 minute, but was " + timeout);
    }
    return timeout;
  }

  /** Configures a {@link RedisBackend}; not thread-safe, {@link #build()} may be called again. */
  public static final class Builder {
    private final RedisScriptingAsyncCommands<String, String> commands;
    private Duration commandTimeout = Duration.ofMillis(500);
    private CircuitBreaker breaker;
    private String keyPrefix = "ringtail";

    private Builder(RedisScriptingAsyncCommands<String, String> commands) {
      this.commands = commands;
    }

    /** Longest a caller waits for Redis before falling back (default 500 ms, at most 1 minute). */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = requireTimeout(timeout);
      return this;
    }

    /**
     * The breaker to guard calls with (default: opens when half of the last 20 calls, at least 5,
     * failed or took longer than the timeout; probes again after 1 s).
     */
    public Builder circuitBreaker(CircuitBreaker breaker) {
      this.breaker = Objects.requireNonNull(breaker, "circuitBreaker");
      return this;
    }

    /** Prefix of every key (default {@code ringtail}); no braces, at most 64 characters. */
    public Builder keyPrefix(String prefix) {
      Objects.requireNonNull(prefix, "keyPrefix");
      if (prefix.isEmpty() || prefix.length() > 64 || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
        throw new IllegalArgumentException(
            "keyPrefix must be 1 to 64 characters without braces, but was \"" + prefix + "\"");
      }
      this.keyPrefix = prefix;
      return this;
    }

    public RedisBackend build() {
      return new RedisBackend(this);
    }
  }
}
