package io.ringtail.redis;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.ringtail.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Runs a {@link LuaScript} by EVALSHA, or a function of a {@link LuaLibrary} by FCALL, through the
 * user's Lettuce connection, or a plain command, guarded by a circuit breaker and a timeout: each a
 * {@link RedisCall}, sent by {@link #call} (or {@link #await}, waiting), a round of them written
 * together by {@link #batched}. Thread-safe.
 *
 * <p>On NOSCRIPT (after SCRIPT FLUSH, a restart, or on a cluster node that never saw the script) it
 * re-sends the body once with EVAL, which also caches it on that node; later calls go back to
 * EVALSHA. Likewise a function not found (after FUNCTION FLUSH, a restart without persistence, or
 * on a node new to the cluster) loads its library (on every primary of a cluster) and is called
 * once more. A call the breaker does not permit fails at once with {@link
 * CallNotPermittedException}, and probes the connection (see {@link BreakerProbe}); a call that
 * takes longer than the timeout fails with {@link TimeoutException} and counts as a breaker error.
 *
 * <p>An error that retrying cannot fix (NOPERM, WRONGTYPE, a script error: any error reply but
 * NOSCRIPT, a function not found and the transient BUSY, LOADING, MASTERDOWN, TRYAGAIN,
 * CLUSTERDOWN) fails the call with {@link RedisRejectedException} carrying Redis's message; it does
 * not count as a breaker error, and each distinct message is logged once per runner.
 */
final class ScriptRunner {
  private final RedisClusterAsyncCommands<String, String> commands;
  private final Function<String, CompletionStage<?>> libraryLoader;
  private final CircuitBreaker breaker;
  private final long timeoutNanos;
  private final int confirmingReplicas;
  private final Function<String, CompletionStage<RedisClusterAsyncCommands<String, String>>>
      connectionOf;

  /** Writes that fewer than {@code confirmingReplicas} replicas confirmed in time. */
  final LongAdder unconfirmedWrites = new LongAdder();

  private static final System.Logger LOG = System.getLogger(ScriptRunner.class.getName());
  private static final int MAX_LOGGED = 64;
  private final TimeSource clock = TimeSource.system();
  final LongAdder scriptReloads = new LongAdder();
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  private final BreakerProbe probe;

  /** The connection behind {@link #commands}, for writes in one flush; null if unknown. */
  private final StatefulConnection<String, String> connection;

  /** Plain commands this thread collects while in {@link #batched}; null when not batching. */
  private final ThreadLocal<List<RedisCommand<String, String, ?>>> collecting = new ThreadLocal<>();

  /**
   * @param libraryLoader FUNCTION LOAD REPLACE of a library's code, on every node a function may be
   *     called on
   */
  ScriptRunner(
      RedisClusterAsyncCommands<String, String> commands,
      Function<String, CompletionStage<?>> libraryLoader,
      CircuitBreaker breaker,
      Duration timeout) {
    this(
        commands,
        libraryLoader,
        breaker,
        timeout,
        0,
        key -> CompletableFuture.completedFuture(commands));
  }

  /**
   * @param confirmingReplicas replicas that must confirm every write (WAIT) before it counts as
   *     done; 0 for none
   * @param connectionOf the commands of the connection that wrote a key (on a cluster, the link to
   *     the node serving it), which WAIT must be sent on
   */
  ScriptRunner(
      RedisClusterAsyncCommands<String, String> commands,
      Function<String, CompletionStage<?>> libraryLoader,
      CircuitBreaker breaker,
      Duration timeout,
      int confirmingReplicas,
      Function<String, CompletionStage<RedisClusterAsyncCommands<String, String>>> connectionOf) {
    this.commands = commands;
    this.libraryLoader = libraryLoader;
    this.breaker = breaker;
    this.timeoutNanos = timeout.toNanos();
    this.confirmingReplicas = confirmingReplicas;
    this.connectionOf = connectionOf;
    this.connection = connectionOf(commands);
    this.probe = new BreakerProbe(commands, breaker, timeoutNanos);
  }

  CircuitBreaker breaker() {
    return breaker;
  }

  long timeoutNanos() {
    return timeoutNanos;
  }

  /** {@link #call(RedisCall, long)} bounded by the runner's timeout. */
  CompletableFuture<List<Object>> call(RedisCall call) {
    return call(call, timeoutNanos);
  }

  /**
   * Sends {@code call}, guarded by the breaker; the future completes with its reply or fails, never
   * later than {@code timeoutNanos}. A script Redis does not hold is sent once more with its body,
   * a function it does not know once more after its library is loaded.
   */
  CompletableFuture<List<Object>> call(RedisCall call, long timeoutNanos) {
    if (call instanceof RedisCall.Script c) {
      LuaScript script = c.script();
      return guarded(
          script.name,
          () -> dispatch(CommandType.EVALSHA, script.sha, c.keys(), c.args()),
          RedisErrors::isNoScript,
          () -> {
            scriptReloads.increment();
            return dispatch(CommandType.EVAL, script.body, c.keys(), c.args());
          },
          timeoutNanos,
          script.readOnly ? null : c.keys());
    }
    if (call instanceof RedisCall.Function c) {
      String name = c.function().name();
      return guarded(
          name,
          () -> dispatch(CommandType.FCALL, name, c.keys(), c.args()),
          RedisErrors::isFunctionNotFound,
          () -> {
            scriptReloads.increment();
            return libraryLoader
                .apply(c.function().library().code)
                .thenCompose(loaded -> dispatch(CommandType.FCALL, name, c.keys(), c.args()));
          },
          timeoutNanos,
          c.keys());
    }
    RedisCall.Command c = (RedisCall.Command) call;
    return guarded(
        c.type().name(),
        () -> send(c.type(), c.args()),
        e -> false,
        () -> CompletableFuture.failedFuture(new IllegalStateException("NOSCRIPT for " + c.type())),
        timeoutNanos,
        c.writtenKey() == null ? null : new String[] {c.writtenKey()});
  }

  /**
   * {@link #call(RedisCall, long)} bounded by {@code timeoutNanos} (what is left of a caller's one
   * timeout), waiting for it at most that long and a 50 ms grace; with nothing left it fails at
   * once without sending.
   */
  List<Object> await(RedisCall call, long timeoutNanos) {
    if (timeoutNanos <= 0) {
      throw new RedisUnavailableException("Redis call timed out", new TimeoutException());
    }
    return RedisErrors.await(call(call, timeoutNanos), timeoutNanos);
  }

  /** The connection's Lettuce computation threads, or null if the connection does not say. */
  io.netty.util.concurrent.EventExecutorGroup eventExecutors() {
    return connection == null ? null : connection.getResources().eventExecutorGroup();
  }

  @SuppressWarnings("deprecation") // the connection is reachable from its commands only this way
  private static StatefulConnection<String, String> connectionOf(
      RedisClusterAsyncCommands<String, String> commands) {
    if (commands instanceof io.lettuce.core.api.async.RedisAsyncCommands<String, String> a) {
      return a.getStatefulConnection();
    }
    if (commands
        instanceof
        io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands<String, String> a) {
      return a.getStatefulConnection();
    }
    return null;
  }

  /**
   * Runs {@code build}, which issues plain commands ({@link RedisCall.Command}s) on this thread,
   * and writes the commands it issued to the connection together: one flush, so that Redis reads a
   * round of many small commands in one go rather than waking for each. The calls complete as they
   * would have one by one (guarded, timed from when they were issued). Scripts and commands issued
   * by other threads meanwhile are written at once, as always.
   */
  void batched(Runnable build) {
    if (connection == null || collecting.get() != null) {
      build.run();
      return;
    }
    List<RedisCommand<String, String, ?>> batch = new ArrayList<>();
    collecting.set(batch);
    try {
      build.run();
    } finally {
      collecting.remove();
    }
    if (batch.isEmpty()) {
      return;
    }
    try {
      connection.dispatch(batch);
    } catch (RuntimeException e) { // a closed connection refuses at once: every call fails
      for (RedisCommand<String, String, ?> c : batch) {
        c.completeExceptionally(e);
      }
    }
  }

  /** A plain command: written at once, or collected while this thread is in {@link #batched}. */
  private CompletionStage<List<Object>> send(CommandType type, CommandArgs<String, String> args) {
    List<RedisCommand<String, String, ?>> batch = collecting.get();
    if (batch == null) {
      return commands.dispatch(type, new BinaryReply(), args);
    }
    AsyncCommand<String, String, List<Object>> c =
        new AsyncCommand<>(new Command<>(type, new BinaryReply(), args));
    batch.add(c);
    return c;
  }

  private CompletableFuture<List<Object>> guarded(
      String name,
      Supplier<CompletionStage<List<Object>>> call,
      Predicate<Throwable> missing,
      Supplier<CompletionStage<List<Object>>> reload,
      long timeoutNanos,
      String[] writtenKeys) {
    if (!breaker.tryAcquirePermission()) {
      probe.probeIfOpen();
      return CompletableFuture.failedFuture(
          CallNotPermittedException.createCallNotPermittedException(breaker));
    }
    long start = clock.nanoTime();
    CompletableFuture<List<Object>> result;
    try {
      result =
          call.get()
              .exceptionallyCompose(
                  e -> missing.test(e) ? reload.get() : CompletableFuture.failedFuture(e))
              .thenCompose(
                  reply ->
                      writtenKeys != null && confirmingReplicas > 0
                          ? confirmed(
                              reply,
                              writtenKeys.length == 0 ? null : writtenKeys[0],
                              timeoutNanos - (clock.nanoTime() - start))
                          : CompletableFuture.completedFuture(reply))
              .toCompletableFuture()
              .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.handle(
        (reply, error) -> {
          long elapsed = clock.nanoTime() - start;
          if (error == null) {
            breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
            return reply;
          }
          Throwable cause = RedisErrors.unwrap(error);
          if (RedisErrors.isPermanent(cause)) {
            breaker.releasePermission();
            logOnce(name, cause);
            throw new CompletionException(new RedisRejectedException(cause.getMessage(), cause));
          }
          breaker.onError(elapsed, TimeUnit.NANOSECONDS, cause);
          throw error instanceof CompletionException c ? c : new CompletionException(cause);
        });
  }

  /**
   * {@code reply} once {@code confirmingReplicas} replicas confirmed the writes so far of the
   * connection that wrote {@code key} (WAIT, within {@code waitNanos}, at least 1 ms); else a
   * {@link RedisUnavailableException}, the write counted as unconfirmed. WAIT holds that
   * connection's later commands until it answers.
   */
  private <T> CompletionStage<T> confirmed(T reply, String key, long waitNanos) {
    // three quarters of what is left, so that WAIT's own answer (how many confirmed) comes back
    // before the call's timeout and is counted
    long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos / 4 * 3));
    return connectionOf
        .apply(key)
        .thenCompose(
            node ->
                node.dispatch(
                    CommandType.WAIT,
                    new IntegerOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add(confirmingReplicas).add(waitMillis)))
        .handle(
            (acked, error) -> {
              // a WAIT that failed or timed out on the client confirmed nothing either
              if (error != null || acked == null || acked < confirmingReplicas) {
                unconfirmedWrites.increment();
                throw new CompletionException(
                    new RedisUnavailableException(
                        (error != null
                                ? "WAIT for " + confirmingReplicas + " replicas got no answer"
                                : acked + " of " + confirmingReplicas + " replicas confirmed")
                            + " within "
                            + waitMillis
                            + " ms",
                        error == null ? null : RedisErrors.unwrap(error)));
              }
              return reply;
            });
  }

  /** EVAL, EVALSHA or FCALL of {@code code} (a script, its SHA-1 or a function's name). */
  private CompletionStage<List<Object>> dispatch(
      CommandType type, String code, String[] keys, byte[][] args) {
    CommandArgs<String, String> a =
        new CommandArgs<>(StringCodec.UTF8).add(code).add(keys.length).addKeys(keys);
    for (byte[] arg : args) {
      a.add(arg);
    }
    return commands.dispatch(type, new BinaryReply(), a);
  }

  private void logOnce(String name, Throwable cause) {
    String message = String.valueOf(cause.getMessage());
    if (logged.size() < MAX_LOGGED && logged.add(message)) {
      LOG.log(
          System.Logger.Level.ERROR,
          "Redis refused " + name + " (not retried, not an outage): " + message);
    }
  }
}
