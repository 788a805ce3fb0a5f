package io.ringtail.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.internal.Checks;
import io.ringtail.slo.ServiceLevelConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The front door to fleet-wide windows and decisions in Redis: it binds a Lettuce connection the
 * user owns (standalone or cluster), a command timeout and a circuit breaker, and builds {@link
 * RedisRollingWindow}s on them. The library opens no connection of its own and starts no thread;
 * closing the connection is the user's business.
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
  private static final Duration MAX_COMMAND_TIMEOUT = Duration.ofMinutes(1);
  final ScriptRunner runner;
  final String keyPrefix;

  /** Whether the connection is a Redis Cluster one (the keys of one command must share a slot). */
  final boolean cluster;

  final OutagePolicy outagePolicy;
  final Duration outageRetryAfter;
  private final LongAdder outageDecisions = new LongAdder();
  final LongAdder localDenials = new LongAdder();
  private final RedisServerClock serverClock;
  final int eventBufferCapacity;
  final LongAdder eventsBuffered = new LongAdder();
  final LongAdder eventsReplayed = new LongAdder();
  final LongAdder eventsDropped = new LongAdder();

  private RedisBackend(Builder b) {
    this.runner =
        new ScriptRunner(
            b.commands,
            b.libraryLoader,
            b.breaker != null ? b.breaker : BreakerProbe.defaultBreaker(b.commandTimeout),
            b.commandTimeout,
            b.confirmingReplicas,
            b.connectionOf);
    this.cluster = b.cluster;
    this.keyPrefix = b.keyPrefix;
    this.outagePolicy = b.outagePolicy;
    this.outageRetryAfter = b.outageRetryAfter;
    this.eventBufferCapacity = b.eventBufferCapacity;
    this.serverClock = new RedisServerClock(runner, TimeSource.system());
  }

  /** A builder over a standalone (or Sentinel-managed) connection. */
  public static Builder builder(StatefulRedisConnection<String, String> connection) {
    var commands = Checks.requireNonNull("connection", connection).async();
    return new Builder(
        commands,
        code -> commands.functionLoad(code, true),
        false,
        key -> CompletableFuture.completedFuture(commands));
  }

  /** A builder over a Redis Cluster connection. */
  public static Builder builder(StatefulRedisClusterConnection<String, String> connection) {
    var commands = Checks.requireNonNull("connection", connection).async();
    return new Builder(
        commands,
        code -> commands.upstream().commands().functionLoad(code, true),
        true,
        key -> nodeOf(connection, key));
  }

  /** The commands of the cluster connection's link to the node serving {@code key} now. */
  private static CompletionStage<RedisClusterAsyncCommands<String, String>> nodeOf(
      StatefulRedisClusterConnection<String, String> connection, String key) {
    RedisClusterNode node =
        key == null ? null : connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
    if (node == null) {
      return CompletableFuture.failedFuture(
          new RedisUnavailableException("no node serves the slot of " + key, null));
    }
    return connection
        .getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
        .thenApply(StatefulRedisConnection::async);
  }

  /**
   * Lettuce options that fail fast instead of queueing: commands are rejected while disconnected,
   * the request queue is bounded, commands time out after {@code commandTimeout}, and nothing is
   * silently re-sent after a reconnect (this library replays what it buffered itself,
   * idempotently).
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

  /**
   * {@link #failFastClientOptions} for a {@code RedisClusterClient}, which also follows a replica's
   * promotion: the topology is re-read on every adaptive trigger (MOVED, ASK, reconnect attempts to
   * a node that is gone) at most every 500 ms, and every 30 s regardless.
   */
  public static ClusterClientOptions failFastClusterClientOptions(Duration commandTimeout) {
    return ClusterClientOptions.builder(failFastClientOptions(commandTimeout))
        .topologyRefreshOptions(
            ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                .refreshTriggersReconnectAttempts(3)
                .enablePeriodicRefresh(Duration.ofSeconds(30))
                .build())
        .build();
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
   * Starts building a fleet-wide histogram window named {@code name}: local recording at in-process
   * cost, one merged histogram per bucket in Redis, for any sample rate (see {@link
   * RedisHistogramWindow}; {@link #window} keeps raw samples instead).
   */
  public RedisHistogramWindow.Builder histogramWindow(String name) {
    return new RedisHistogramWindow.Builder(this, name);
  }

  /**
   * Starts building fleet-wide histogram windows named {@code name}, one per key (route, tenant,
   * client); this backend publishes all of them once per interval (see {@link
   * RedisKeyedHistogramWindows}).
   */
  public RedisKeyedHistogramWindows.Builder keyedHistogramWindows(String name) {
    return new RedisKeyedHistogramWindows.Builder(this, name);
  }

  /**
   * A board of small text states named {@code name} that every process of the fleet reads and the
   * owner of a piece of fleet-wide work posts to (see {@link StateBoard}); it expires {@code ttl}
   * after its last post.
   *
   * @throws IllegalArgumentException if the name is empty or the time to live under a millisecond
   */
  public StateBoard stateBoard(String name, Duration ttl) {
    return new StateBoard(this, name, ttl);
  }

  /**
   * A fleet-wide service level of {@code config} with the defaults (publishing every second, on the
   * Redis server's clock): every process that builds one of the same configuration on this Redis
   * counts into it and reads the fleet's SLI, budget and burn rates (see {@link
   * RedisServiceLevel}).
   *
   * @throws IllegalArgumentException if a window of the config (the period, an alert's window) is
   *     not a whole multiple of 60 ms
   */
  public RedisServiceLevel serviceLevel(ServiceLevelConfig config) {
    return serviceLevelBuilder(config).build();
  }

  /**
   * Starts building a fleet-wide service level of {@code config}, for a publish interval, a time
   * source or a scheduler of its own.
   *
   * @throws IllegalArgumentException as {@link #serviceLevel(ServiceLevelConfig)}
   */
  public RedisServiceLevel.Builder serviceLevelBuilder(ServiceLevelConfig config) {
    return new RedisServiceLevel.Builder(this, config);
  }

  private FleetPublisher fleetPublisher; // guarded by this

  /** The publication rounds shared by this backend's keyed histogram windows. */
  synchronized FleetPublisher fleetPublisher() {
    if (fleetPublisher == null) {
      fleetPublisher = new FleetPublisher(runner, serverClock);
    }
    return fleetPublisher;
  }

  /**
   * A fleet-wide {@link ThresholdDetector}: every process building one with the same {@code name}
   * shares its per-key state. Same semantics as the in-process detector; times are readings of the
   * configuration's time source, which must be a base the fleet shares (for example epoch
   * nanoseconds). Windows up to 2^51 ns (26 days).
   *
   * @throws IllegalArgumentException if the window is longer
   */
  public ThresholdDetector thresholdDetector(String name, ThresholdConfig config) {
    return new RedisThresholdDetector(this, name, Checks.requireNonNull("config", config));
  }

  /**
   * A fleet-wide sliding-log {@link RateLimiter} shared under {@code name}: per key one string
   * holding the last {@code limit} admitted times (8 bytes each); see {@link #thresholdDetector}.
   * Denials that must hold are answered in-process until they could succeed ({@link
   * #localDenials()}). Windows up to 2^51 ns (26 days).
   *
   * @throws IllegalArgumentException if the window is longer
   */
  public RateLimiter rateLimiter(String name, RateLimitConfig config) {
    return new RedisRateLimiter(
        this, name, Checks.requireNonNull("config", config), RedisRateLimiter.Kind.SLIDING_LOG);
  }

  /**
   * A fleet-wide bucketed {@link RateLimiter} shared under {@code name}: per key one string of 17
   * counters by sub-window of {@code g = ceil(W / 16)} (under 200 bytes whatever the limit), with
   * the in-process {@link RateLimiter#inProcessBucketed} semantics: never more than the limit in
   * any window, a key let through again at most {@code g - 1} ns later than the exact log would.
   * Windows up to 2^51 ns (26 days).
   */
  public RateLimiter bucketedRateLimiter(String name, RateLimitConfig config) {
    return new RedisRateLimiter(
        this, name, Checks.requireNonNull("config", config), RedisRateLimiter.Kind.BUCKETED);
  }

  /**
   * A fleet-wide {@link SumCap} with exact decimal totals, shared under {@code name}. Windows up to
   * 2^51 ns (26 days).
   *
   * @throws IllegalArgumentException if the window is longer
   */
  public SumCap sumCap(String name, SumCapConfig config) {
    return new RedisSumCap(this, name, Checks.requireNonNull("config", config));
  }

  /**
   * The Redis server's clock (epoch nanoseconds): this backend's one time base, the same instance
   * at every call, which its decisions and fleet windows use too. Estimated locally from the
   * shortest of a few {@code TIME} round trips, measured at the first reading (not here: building a
   * backend or calling this does no I/O), within the command timeout, and re-measured every 10 s:
   * the fleet-wide time base for decisions and client-timed windows, so clients whose own clocks
   * disagree (by seconds) still decide alike. Its error is about half a round trip; readings never
   * go backwards. A reading throws {@link RedisUnavailableException} while no measurement has
   * succeeded and Redis cannot answer one; the next reading tries again.
   */
  public TimeSource serverClock() {
    return serverClock;
  }

  /**
   * Rate-limiter denials answered from this process's memory, without a Redis call: once Redis
   * denied a key until some time, every request for it before that time is denied locally.
   */
  public long localDenials() {
    return localDenials.sum();
  }

  /** The server clock, measured first (within {@code timeoutNanos}) if it is not yet. */
  RedisServerClock measuredServerClock(long timeoutNanos) {
    return serverClock.measured(timeoutNanos);
  }

  /**
   * Writes that fewer than {@link Builder#confirmingReplicas} replicas confirmed in time (0 unless
   * that is set); each was answered as an outage.
   */
  public long unconfirmedWrites() {
    return runner.unconfirmedWrites.sum();
  }

  /** Decisions answered by the {@link OutagePolicy} because Redis could not answer. */
  public long outageDecisions() {
    return outageDecisions.sum();
  }

  /**
   * What became of threshold-detector events that arrived while Redis could not answer: they are
   * buffered (up to {@link Builder#eventBufferCapacity} per detector) and replayed after Redis
   * answers again; none is lost silently.
   */
  public DecisionOutageStats decisionOutageStats() {
    return new DecisionOutageStats(
        outageDecisions.sum(), eventsBuffered.sum(), eventsReplayed.sum(), eventsDropped.sum());
  }

  <D> D onOutage(RedisUnavailableException e, Supplier<D> open, Supplier<D> closed) {
    if (outagePolicy == OutagePolicy.THROW) {
      throw e;
    }
    outageDecisions.increment();
    return outagePolicy == OutagePolicy.FAIL_OPEN ? open.get() : closed.get();
  }

  static Duration requireTimeout(Duration timeout) {
    Checks.requireBetweenNanos("commandTimeout", timeout, Duration.ofNanos(1), MAX_COMMAND_TIMEOUT);
    return timeout;
  }

  /**
   * Configures a {@link RedisBackend}; not thread-safe. {@link #build()} checks every value and may
   * be called again.
   */
  public static final class Builder {
    private final RedisClusterAsyncCommands<String, String> commands;
    private final Function<String, CompletionStage<?>> libraryLoader;
    private final boolean cluster;
    private final Function<String, CompletionStage<RedisClusterAsyncCommands<String, String>>>
        connectionOf;
    private Duration commandTimeout = Duration.ofMillis(500);
    private CircuitBreaker breaker;
    private boolean breakerSet;
    private String keyPrefix = "ringtail";
    private OutagePolicy outagePolicy = OutagePolicy.FAIL_CLOSED;
    private Duration outageRetryAfter = Duration.ofSeconds(1);
    private int eventBufferCapacity = 10_000;
    private int confirmingReplicas;

    private Builder(
        RedisClusterAsyncCommands<String, String> commands,
        Function<String, CompletionStage<?>> libraryLoader,
        boolean cluster,
        Function<String, CompletionStage<RedisClusterAsyncCommands<String, String>>> connectionOf) {
      this.commands = commands;
      this.libraryLoader = libraryLoader;
      this.cluster = cluster;
      this.connectionOf = connectionOf;
    }

    /** Longest a caller waits for Redis before falling back (default 500 ms, at most 1 minute). */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = timeout;
      return this;
    }

    /**
     * The breaker to guard calls with (default: opens when half of the last 20 calls, at least 5,
     * failed or took longer than the timeout; probes again after 1 s). Whatever the breaker, while
     * it is open a refused call also sends a PING (one per 100 ms at most): once Redis answers (the
     * connection is back, or follows a failover) the breaker goes half-open at once.
     */
    public Builder circuitBreaker(CircuitBreaker breaker) {
      this.breaker = breaker;
      this.breakerSet = true;
      return this;
    }

    /** Prefix of every key (default {@code ringtail}); no braces, at most 64 characters. */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = prefix;
      return this;
    }

    /** What decisions answer while Redis cannot (default {@link OutagePolicy#FAIL_CLOSED}). */
    public Builder outagePolicy(OutagePolicy policy) {
      this.outagePolicy = policy;
      return this;
    }

    /**
     * The retry-after a decision denied by {@link OutagePolicy#FAIL_CLOSED} reports (default 1 s).
     */
    public Builder outageRetryAfter(Duration retryAfter) {
      this.outageRetryAfter = retryAfter;
      return this;
    }

    /**
     * Threshold-detector events kept per detector while Redis is unreachable, for replay (default
     * 10,000; 0 keeps none, so every such event counts as dropped).
     */
    public Builder eventBufferCapacity(int capacity) {
      this.eventBufferCapacity = capacity;
      return this;
    }

    /**
     * Strict mode: every write (a decision, a window's record call, a histogram publication) counts
     * as done only once this many replicas confirmed it ({@code WAIT} after the call, within what
     * is left of the command timeout), so a failover to a confirming replica loses nothing that was
     * admitted or published. A write not confirmed in time is answered as an outage ({@link
     * #unconfirmedWrites}): a decision by the {@link OutagePolicy} (fail closed: denied, though the
     * primary may have counted it), a record call's samples are kept and replayed (idempotently)
     * and a publication is sent again. Default 0, off; 1 to 16. On a cluster, WAIT goes to the node
     * serving the written key, on the link that wrote it. Each write then also waits for the
     * replicas' acknowledgement, and WAIT holds that link's later commands until it answers (see
     * docs/failover.md for the cost).
     */
    public Builder confirmingReplicas(int replicas) {
      this.confirmingReplicas = replicas;
      return this;
    }

    /**
     * Checks every value and returns the backend.
     *
     * @throws NullPointerException if a value was set to null
     * @throws IllegalArgumentException if a value is out of range, naming it
     */
    public RedisBackend build() {
      requireTimeout(commandTimeout);
      if (breakerSet) {
        Checks.requireNonNull("circuitBreaker", breaker);
      }
      Checks.requireLength("keyPrefix", keyPrefix, 64);
      if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
        throw Checks.invalid("keyPrefix", "1 to 64 characters without braces", keyPrefix);
      }
      Checks.requireNonNull("outagePolicy", outagePolicy);
      Checks.requirePositiveNanos("outageRetryAfter", outageRetryAfter);
      Checks.requireBetween("eventBufferCapacity", eventBufferCapacity, 0, 10_000_000);
      Checks.requireBetween("confirmingReplicas", confirmingReplicas, 0, 16);
      return new RedisBackend(this);
    }
  }
}
