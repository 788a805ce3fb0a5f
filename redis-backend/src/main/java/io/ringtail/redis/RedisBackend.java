package io.ringtail.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

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
  final OutagePolicy outagePolicy;
  final Duration outageRetryAfter;
  private final LongAdder outageDecisions = new LongAdder();
  final int eventBufferCapacity;
  final LongAdder eventsBuffered = new LongAdder();
  final LongAdder eventsReplayed = new LongAdder();
  final LongAdder eventsDropped = new LongAdder();

  private RedisBackend(Builder b) {
    this.runner = new ScriptRunner(b.commands, b.breaker != null ? b.breaker : defaultBreaker(b.commandTimeout),
        b.commandTimeout);
    this.keyPrefix = b.keyPrefix;
    this.outagePolicy = b.outagePolicy;
    this.outageRetryAfter = b.outageRetryAfter;
    this.eventBufferCapacity = b.eventBufferCapacity;
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

  /**
   * A fleet-wide {@link ThresholdDetector}: every process building one with the same
   * {@code name} shares its per-key state. Same semantics as the in-process detector; times are
   * readings of the configuration's time source, which must be a base the fleet shares (for
   * example epoch nanoseconds).
   */
  public ThresholdDetector thresholdDetector(String name, ThresholdConfig config) {
    return new RedisThresholdDetector(this, name, Objects.requireNonNull(config, "config"));
  }

  /** A fleet-wide sliding-log {@link RateLimiter} shared under {@code name}; see {@link #thresholdDetector}. */
  public RateLimiter rateLimiter(String name, RateLimitConfig config) {
    return new RedisRateLimiter(this, name, Objects.requireNonNull(config, "config"));
  }

  /** A fleet-wide {@link SumCap} with exact decimal totals, shared under {@code name}. */
  public SumCap sumCap(String name, SumCapConfig config) {
    return new RedisSumCap(this, name, Objects.requireNonNull(config, "config"));
  }

  /**
   * A time source reading the Redis server's clock (epoch nanoseconds), estimated locally from
   * the shortest of a few {@code TIME} round trips and re-measured every 10 s: the fleet-wide
   * time base for decisions and client-timed windows, so clients whose own clocks disagree (by
   * seconds) still decide alike. Its error is about half a round trip.
   *
   * @throws RedisUnavailableException if Redis cannot answer the first measurement
   */
  public TimeSource serverClock() {
    return new RedisServerClock(runner, TimeSource.system());
  }

  /** Decisions answered by the {@link OutagePolicy} because Redis could not answer. */
  public long outageDecisions() {
    return outageDecisions.sum();
  }

  /**
   * What became of threshold-detector events that arrived while Redis could not answer: they
   * are buffered (up to {@link Builder#eventBufferCapacity} per detector) and replayed after
   * Redis answers again; none is lost silently.
   */
  public DecisionOutageStats decisionOutageStats() {
    return new DecisionOutageStats(outageDecisions.sum(), eventsBuffered.sum(), eventsReplayed.sum(),
        eventsDropped.sum());
  }

  <D> D onOutage(RedisUnavailableException e, Supplier<D> open, Supplier<D> closed) {
    if (outagePolicy == OutagePolicy.THROW) {
      throw e;
    }
    outageDecisions.increment();
    return outagePolicy == OutagePolicy.FAIL_OPEN ? open.get() : closed.get();
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
    private OutagePolicy outagePolicy = OutagePolicy.FAIL_CLOSED;
    private Duration outageRetryAfter = Duration.ofSeconds(1);
    private int eventBufferCapacity = 10_000;

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

    /** What decisions answer while Redis cannot (default {@link OutagePolicy#FAIL_CLOSED}). */
    public Builder outagePolicy(OutagePolicy policy) {
      this.outagePolicy = Objects.requireNonNull(policy, "outagePolicy");
      return this;
    }

    /** The retry-after a decision denied by {@link OutagePolicy#FAIL_CLOSED} reports (default 1 s). */
    public Builder outageRetryAfter(Duration retryAfter) {
      Objects.requireNonNull(retryAfter, "outageRetryAfter");
      if (retryAfter.isNegative() || retryAfter.isZero()) {
        throw new IllegalArgumentException("outageRetryAfter must be positive, but was " + retryAfter);
      }
      this.outageRetryAfter = retryAfter;
      return this;
    }

    /**
     * Threshold-detector events kept per detector while Redis is unreachable, for replay
     * (default 10,000; 0 keeps none, so every such event counts as dropped).
     */
    public Builder eventBufferCapacity(int capacity) {
      if (capacity < 0 || capacity > 10_000_000) {
        throw new IllegalArgumentException("eventBufferCapacity must be between 0 and 10000000, but was " + capacity);
      }
      this.eventBufferCapacity = capacity;
      return this;
    }

    public RedisBackend build() {
      return new RedisBackend(this);
    }
  }
}
