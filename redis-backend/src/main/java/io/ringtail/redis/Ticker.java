package io.ringtail.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a publication task every interval without a thread of the library's own: on the scheduler
 * the user gave, else on the connection's Lettuce computation threads ({@code
 * ClientResources.eventExecutorGroup()}, which the user's client already runs), else (a connection
 * that does not say) re-armed on the JDK's delayed executor. The task must not block.
 */
final class Ticker {
  private Ticker() {}

  /**
   * Starts {@code tick} every {@code intervalNanos} and {@code midpoint} halfway between ticks (the
   * first half an interval after the start, the first tick a whole one); closing the handle stops
   * both.
   */
  static AutoCloseable startWithMidpoint(
      ScriptRunner runner,
      ScheduledExecutorService scheduler,
      long intervalNanos,
      Runnable tick,
      Runnable midpoint) {
    AtomicLong count = new AtomicLong();
    return start(
        runner,
        scheduler,
        Math.max(1, intervalNanos / 2),
        () -> {
          if ((count.incrementAndGet() & 1) == 0) {
            tick.run();
          } else {
            midpoint.run();
          }
        });
  }

  /** Starts {@code tick} every {@code intervalNanos}; closing the handle stops it. */
  static AutoCloseable start(
      ScriptRunner runner, ScheduledExecutorService scheduler, long intervalNanos, Runnable tick) {
    if (scheduler != null) {
      ScheduledFuture<?> f =
          scheduler.scheduleAtFixedRate(tick, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    }
    io.netty.util.concurrent.EventExecutorGroup lettuce = runner.eventExecutors();
    if (lettuce != null) {
      ScheduledFuture<?> f =
          lettuce.scheduleAtFixedRate(tick, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    }
    AtomicBoolean closed = new AtomicBoolean();
    rearm(closed, intervalNanos, tick);
    return () -> closed.set(true);
  }

  private static void rearm(AtomicBoolean closed, long intervalNanos, Runnable tick) {
    Executor later = CompletableFuture.delayedExecutor(intervalNanos, TimeUnit.NANOSECONDS);
    later.execute(
        () -> {
          if (!closed.get()) {
            tick.run();
            rearm(closed, intervalNanos, tick);
          }
        });
  }
}
