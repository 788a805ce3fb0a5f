package io.ringtail.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the backend reads Redis's failures: which error replies a retry or a reload can fix and which
 * it cannot ({@link RedisRejectedException}), and waiting for a call with the outcome a caller sees
 * ({@link RedisUnavailableException} for an outage). Static helpers only.
 */
final class RedisErrors {
  private RedisErrors() {}

  /**
   * Waits for a call of a {@link ScriptRunner} at most {@code timeoutNanos} and a 50 ms grace: its
   * reply, a {@link RedisRejectedException} for a permanent error, else a {@link
   * RedisUnavailableException}.
   */
  static <T> T await(CompletableFuture<T> call, long timeoutNanos) {
    try {
      return call.get(timeoutNanos + TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisUnavailableException("interrupted while waiting for Redis", e);
    } catch (ExecutionException e) {
      if (unwrap(e) instanceof RedisRejectedException rejected) {
        throw new RedisRejectedException(rejected.getMessage(), rejected.getCause());
      }
      throw new RedisUnavailableException("Redis call failed: " + unwrap(e), unwrap(e));
    } catch (TimeoutException e) {
      throw new RedisUnavailableException("Redis call timed out", e);
    }
  }

  static boolean isNoScript(Throwable e) {
    Throwable t = unwrap(e);
    return t instanceof RedisNoScriptException
        || (t != null && t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"));
  }

  /** FCALL's error for a function no library on the node registers. */
  static boolean isFunctionNotFound(Throwable e) {
    Throwable t = unwrap(e);
    return t instanceof RedisCommandExecutionException
        && t.getMessage() != null
        && t.getMessage().startsWith("ERR Function not found");
  }

  /**
   * An error reply that the same call would get again: anything but NOSCRIPT, a function not found
   * and the transient ones.
   */
  static boolean isPermanent(Throwable t) {
    if (!(t instanceof RedisCommandExecutionException) || isNoScript(t) || isFunctionNotFound(t)) {
      return false;
    }
    String m = t.getMessage() == null ? "" : t.getMessage();
    return !(m.startsWith("BUSY")
        || m.startsWith("LOADING")
        || m.startsWith("MASTERDOWN")
        || m.startsWith("TRYAGAIN")
        || m.startsWith("CLUSTERDOWN")
        || m.startsWith("MOVED")
        || m.startsWith("ASK")
        || m.startsWith("READONLY"));
  }

  static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
