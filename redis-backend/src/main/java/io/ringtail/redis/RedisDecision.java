package io.ringtail.redis;

import io.ringtail.TimeSource;
import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.DecisionCounts;
import io.ringtail.decision.DecisionListener;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Shared plumbing of the Redis decisions: argument checks, deadlines, TTLs, listener calls, counts.
 *
 * @param <D> the decision type
 */
abstract class RedisDecision<D> implements CountsDecisions {
  private static final System.Logger LOG = System.getLogger(RedisDecision.class.getName());

  /** Expired or surplus events a threshold call evicts at most. */
  static final int CHUNK = 500;

  final RedisBackend backend;
  final String name;

  /** The monotonic clock a decision's one timeout is measured on. */
  private final TimeSource localClock = TimeSource.system();

  private final LongAdder allowed = new LongAdder();
  private final LongAdder denied = new LongAdder();
  final LongAdder answeredLocally = new LongAdder();
  private final LongAdder answeredByPolicy = new LongAdder();

  RedisDecision(RedisBackend backend, String name) {
    this.backend = backend;
    this.name = Checks.requireLength("name", name, 256);
  }

  /**
   * Runs a decision function on its {@link PackedArgs} (a copy for this call) and TTL, after
   * writing the deadline in server microseconds: half the remaining budget after the call is sent,
   * minus the server clock's error, so a function that reaches Redis after its caller stopped
   * waiting changes nothing and answers {@code {-1}} instead of its packed reply. Bounded by one
   * command timeout, the first clock measurement included. Returns the packed reply, for the
   * decision's {@link DecisionReply} to decode.
   *
   * @throws RedisUnavailableException if Redis did not answer in time, or answered past the
   *     deadline
   */
  byte[] decide(LuaLibrary.Function function, String[] keys, byte[] packed, String ttl) {
    return decide(
        function.toString(),
        (args, left) -> backend.runner.await(RedisCall.function(function, keys, args), left),
        packed,
        new byte[][] {null, ascii(ttl)});
  }

  /**
   * {@link #decide(LuaLibrary.Function, String[], byte[], String)} for a script (EVALSHA), with
   * {@code more} arguments after the TTL.
   */
  byte[] decide(LuaScript script, String[] keys, byte[] packed, String ttl, String... more) {
    byte[][] args = new byte[2 + more.length][];
    args[1] = ascii(ttl);
    for (int i = 0; i < more.length; i++) {
      args[2 + i] = more[i].getBytes(StandardCharsets.UTF_8);
    }
    return decide(
        script.name,
        (filled, left) -> backend.runner.await(RedisCall.script(script, keys, filled), left),
        packed,
        args);
  }

  /**
   * Writes the deadline into {@code packed}, puts it first in {@code args} and makes the call with
   * what is left of the timeout.
   */
  private byte[] decide(
      String what, BiFunction<byte[][], Long, List<Object>> call, byte[] packed, byte[][] args) {
    long start = localClock.nanoTime();
    long budget = backend.runner.timeoutNanos();
    RedisServerClock clock = backend.measuredServerClock(budget);
    long left = budget - (localClock.nanoTime() - start);
    if (left <= 0) {
      throw new RedisUnavailableException("Redis call timed out", null);
    }
    PackedArgs.deadline(
        packed, Math.floorDiv(clock.nanoTime() - clock.errorNanos + left / 2, 1_000L));
    args[0] = packed;
    List<Object> reply = call.apply(args, left);
    if (reply.size() == 1 && reply.get(0) instanceof byte[] answer) {
      return answer;
    }
    if (reply.size() == 1 && Long.valueOf(-1).equals(reply.get(0))) {
      throw new RedisUnavailableException(
          "Redis ran the call after its deadline: nothing was recorded", null);
    }
    throw new IllegalStateException(what + " replied " + reply);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Largest window of a Redis decision: time differences stay exact in Lua numbers (decision.lua).
   */
  static final long MAX_WINDOW_NANOS = 1L << 51;

  static void requireWindow(String what, java.time.Duration window) {
    if (window.toNanos() > MAX_WINDOW_NANOS) {
      throw Checks.invalid(
          "window",
          "at most "
              + java.time.Duration.ofNanos(MAX_WINDOW_NANOS)
              + " (2^51 ns) for a Redis "
              + what,
          window);
    }
  }

  /**
   * A listener cooldown as the functions take it: at most 2^53 ns (104 days), beyond which no time
   * difference in a window reaches it anyway.
   */
  static long cooldownNanos(java.time.Duration cooldown) {
    return Math.min(cooldown.toNanos(), PackedArgs.MAX_EXACT);
  }

  static String requireKey(String key) {
    return Checks.requireNonEmpty("key", key);
  }

  /**
   * PEXPIRE for state idle for {@code idleNanos} (positive) on the time base: rounded up, plus 1 s;
   * never overflows, up to {@code Long.MAX_VALUE} nanoseconds.
   */
  static String ttlMillis(long idleNanos) {
    long millis = idleNanos / 1_000_000 + (idleNanos % 1_000_000 == 0 ? 0 : 1);
    return Long.toString(millis + 1_000);
  }

  /** Whether {@code decision} denies (a limiter, a cap) or fires (a detector). */
  abstract boolean denies(D decision);

  /** Counts a decision about to be returned. */
  final D counted(D decision) {
    (denies(decision) ? denied : allowed).increment();
    return decision;
  }

  /** The outage policy's answer ({@link RedisBackend#onOutage}), counted. */
  final D onOutage(RedisUnavailableException e, Supplier<D> open, Supplier<D> closed) {
    D decision = backend.onOutage(e, open, closed);
    answeredByPolicy.increment();
    return counted(decision);
  }

  @Override
  public final DecisionCounts decisionCounts() {
    return new DecisionCounts(
        allowed.sum(), denied.sum(), answeredLocally.sum(), answeredByPolicy.sum());
  }

  void notifyListener(
      Optional<? extends DecisionListener<? super D>> listener, String key, D decision) {
    if (listener.isEmpty()) {
      return;
    }
    try {
      listener.get().onCrossing(key, decision);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "listener of " + name + " threw on key " + key, e);
    }
  }
}
