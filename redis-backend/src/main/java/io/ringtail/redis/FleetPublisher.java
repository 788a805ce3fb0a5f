package io.ringtail.redis;

import io.lettuce.core.protocol.CommandType;
import io.ringtail.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One backend's publication rounds for all of its keyed histogram windows: a round collects every
 * delta that is due in every registered window and writes them to the connection together, in one
 * flush ({@link ScriptRunner#batched}), plus one {@code TIME} to keep the server time base honest.
 * At most one round runs at a time.
 *
 * <p>Rounds start on a ticker, never on a recording thread: on the scheduler a window was given,
 * else on the connection's Lettuce computation threads ({@code
 * ClientResources.eventExecutorGroup()}), which the user's client already runs; the ticker only
 * drains, encodes and hands commands to Lettuce, and replies complete on Lettuce's threads. A
 * window is due when its interval has passed, within half an interval, so windows of one interval
 * share one round per interval whatever their tickers' phases. Thread-safe.
 */
final class FleetPublisher {
  /** Why a round runs: what it sends and which groups it merges. */
  enum Round {
    /** A ticker's round: closed buckets; merges the groups whose lease this process holds. */
    TICK,
    /** Before a snapshot: every bucket; merges the held groups only. */
    READ,
    /** A flush: every bucket; merges every group it sent to, lease or not. */
    FLUSH
  }

  /** A window whose deltas a round publishes. */
  interface Source {
    /**
     * Drains, freezes and sends what {@code round} sends, then merges what it merges; the futures
     * complete when Redis has answered.
     */
    void publish(List<CompletableFuture<?>> calls, Round round);

    /** Drains into memory without sending: a tick's work while a round still waits for Redis. */
    void collect();

    /** Halfway between ticks: drains into memory, and renews what must not lapse. */
    default void midpoint() {
      collect();
    }

    long intervalNanos();
  }

  private final ScriptRunner runner;
  private final TimeSource clock = TimeSource.system();
  private final List<Registered> sources = new CopyOnWriteArrayList<>();
  private final RedisServerClock serverClock;
  private boolean serverTimeUsed; // guarded by this
  private CompletableFuture<Void> round =
      CompletableFuture.completedFuture(null); // guarded by this

  FleetPublisher(ScriptRunner runner, RedisServerClock serverClock) {
    this.runner = runner;
    this.serverClock = serverClock;
  }

  /**
   * The backend's server clock, for a source that records on it: from now on every round also
   * carries a {@code TIME} whose answer the clock {@linkplain RedisServerClock#adopt adopts}.
   */
  synchronized RedisServerClock serverTime() {
    serverTimeUsed = true;
    return serverClock;
  }

  /**
   * Registers a source and starts its ticker: on {@code scheduler}, or on Lettuce's computation
   * threads when null. Returns the handle that unregisters it.
   */
  AutoCloseable register(Source source, ScheduledExecutorService scheduler) {
    Registered r = new Registered(source, clock.nanoTime() + source.intervalNanos());
    sources.add(r);
    // halfway between ticks the source drains into memory, so each bucket is drained at least
    // once before the next rotation even when a tick comes late
    AutoCloseable ticker =
        Ticker.startWithMidpoint(
            runner, scheduler, source.intervalNanos(), this::tickQuietly, source::midpoint);
    return () -> {
      sources.remove(r);
      ticker.close();
    };
  }

  private void tickQuietly() {
    try {
      if (tryStartRound(null, Round.TICK) == null) {
        collectDue();
      }
    } catch (RuntimeException e) {
      // a round's failures are counted by its sources; a tick must not kill the ticker
    }
  }

  /**
   * Starts a round of every due source, and of {@code forced} whether due or not (as a {@code kind}
   * round), unless a round is running. Returns the round started, or null if one was running (see
   * {@link #running()}).
   */
  synchronized CompletableFuture<Void> tryStartRound(Source forced, Round kind) {
    if (!round.isDone()) {
      return null;
    }
    long now = clock.nanoTime();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    // one flush for the whole round: Redis reads it in one go instead of waking per command
    runner.batched(
        () -> {
          boolean forcedDone = forced == null;
          for (Registered r : sources) {
            long interval = r.source.intervalNanos();
            if (r.source == forced || now - r.nextDue >= -interval / 2) {
              r.nextDue = now + interval;
              r.source.publish(calls, r.source == forced ? kind : Round.TICK);
              forcedDone |= r.source == forced;
            }
          }
          if (!forcedDone) { // a closed window's flush: it publishes, though it ticks no more
            forced.publish(calls, kind);
          }
          if (!calls.isEmpty() && serverTimeUsed) {
            calls.add(adoptServerTime());
          }
        });
    round = CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
    return round;
  }

  /**
   * Drains every due source into memory while a round still waits for Redis (an outage, a slow
   * server): rotations then keep finding their previous bucket drained, so a recording thread never
   * walks a bucket's slots, however long the round takes. They stay due for the next round.
   */
  private void collectDue() {
    long now = clock.nanoTime();
    for (Registered r : sources) {
      if (now - r.nextDue >= -r.source.intervalNanos() / 2) {
        r.source.collect();
      }
    }
  }

  /** The round running now, or the last one. */
  synchronized CompletableFuture<Void> running() {
    return round;
  }

  private CompletableFuture<?> adoptServerTime() {
    RedisServerClock clock = serverClock;
    long sent = clock.localNanoTime();
    return runner
        .call(RedisCall.command(CommandType.TIME))
        .thenAccept(reply -> clock.adopt(sent, clock.localNanoTime(), reply));
  }

  private static final class Registered {
    final Source source;
    volatile long nextDue;

    Registered(Source source, long nextDue) {
      this.source = source;
      this.nextDue = nextDue;
    }
  }
}
