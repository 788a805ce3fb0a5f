package io.ringtail.redis;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.ringtail.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs a {@link LuaScript} by EVALSHA through the user's Lettuce connection, guarded by a circuit
 * breaker and a timeout. Thread-safe.
 *
 * <p>On NOSCRIPT (after SCRIPT FLUSH, a restart, or on a cluster node that never saw the script)
 * it re-sends the body once with EVAL, which also caches it on that node; later calls go back to
 * EVALSHA. A call the breaker does not permit fails at once with
 * {@link CallNotPermittedException}; a call that takes longer than the timeout fails with
 * {@link TimeoutException} and counts as a breaker error.
 */
final class ScriptRunner {
  private final RedisScriptingAsyncCommands<String, String> commands;
  private final CircuitBreaker breaker;
  private final long timeoutNanos;
  private final TimeSource clock = TimeSource.system();
  final LongAdder scriptReloads = new LongAdder();

  ScriptRunner(RedisScriptingAsyncCommands<String, String> commands, CircuitBreaker breaker,
      Duration timeout) {
    this.commands = commands;
    this.breaker = breaker;
    this.timeoutNanos = timeout.toNanos();
  }

  CircuitBreaker breaker() {
    return breaker;
  }

  long timeoutNanos() {
    return timeoutNanos;
  }

  /** Runs the script; the future completes with its reply or fails, never later than the timeout. */
  CompletableFuture<List<Object>> run(LuaScript script, String[] keys, String[] args) {
    if (!breaker.tryAcquirePermission()) {
      return CompletableFuture.failedFuture(CallNotPermittedException.createCallNotPermittedException(breaker));
    }
    long start = clock.nanoTime();
    CompletableFuture<List<Object>> result;
    try {
      result = this.<List<Object>>evalsha(script, keys, args)
          .exceptionallyCompose(e -> isNoScript(e) ? reload(script, keys, args) : CompletableFuture.failedFuture(e))
          .toCompletableFuture()
          .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.whenComplete((reply, error) -> {
      long elapsed = clock.nanoTime() - start;
      if (error == null) {
        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
      } else {
        breaker.onError(elapsed, TimeUnit.NANOSECONDS, unwrap(error));
      }
    });
  }

  /** {@link #run} and waits for it, up to the timeout. */
  List<Object> runSync(LuaScript script, String[] keys, String[] args) {
    return runSync(script, keys, args, timeoutNanos + TimeUnit.MILLISECONDS.toNanos(50));
  }

  /**
   * {@link #run} and waits for it at most {@code waitNanos} (what is left of a caller's one
   * timeout); with nothing left it fails at once without sending.
   */
  List<Object> runSync(LuaScript script, String[] keys, String[] args, long waitNanos) {
    if (waitNanos <= 0) {
      throw new RedisUnavailableException("Redis call timed out", new TimeoutException());
    }
    try {
      return run(script, keys, args).get(waitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisUnavailableException("interrupted while waiting for Redis", e);
    } catch (ExecutionException e) {
      throw new RedisUnavailableException("Redis call failed: " + unwrap(e), unwrap(e));
    } catch (TimeoutException e) {
      throw new RedisUnavailableException("Redis call timed out", e);
    }
  }

  private <T> CompletionStage<T> evalsha(LuaScript script, String[] keys, String[] args) {
    return commands.evalsha(script.sha, ScriptOutputType.MULTI, keys, args);
  }

  private CompletionStage<List<Object>> reload(LuaScript script, String[] keys, String[] args) {
    scriptReloads.increment();
    return commands.<List<Object>>eval(script.body, ScriptOutputType.MULTI, keys, args);
  }

  static boolean isNoScript(Throwable e) {
    Throwable t = unwrap(e);
    return t instanceof RedisNoScriptException
        || (t != null && t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"));
  }

  static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
