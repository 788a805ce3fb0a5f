package io.ringtail.redis;

import io.ringtail.TimeSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The Redis server's clock in epoch nanoseconds, one per backend ({@link
 * RedisBackend#serverClock()}), for every part of the backend that needs the server's time: a local
 * monotonic reading plus an offset measured against Redis {@code TIME} at the midpoint of a round
 * trip, so no reading costs a round trip.
 *
 * <p>Building it costs nothing: the first {@link #nanoTime()} (or {@link #measured}) measures the
 * offset, the shortest of up to {@value #START_ROUND_TRIPS} round trips, all within the command
 * timeout; readers arriving meanwhile wait for that measurement, at most the timeout. A failed
 * measurement throws {@link RedisUnavailableException} and the next reading tries again. After it,
 * {@link #nanoTime()} re-measures asynchronously once the offset is 10 s old, and the fleet
 * publication rounds {@linkplain #adopt adopt} the {@code TIME} they carry; a later round trip
 * replaces the offset if it took at most twice the shortest so far, or if the offset is 10 s old.
 *
 * <p>{@link #nanoTime()} never goes backwards (one compare-and-set per reading). {@link
 * #estimateNanos()} is the record paths' reading: it never waits and writes nothing shared, may
 * step back by the estimate's error when the offset is corrected, and before the first measurement
 * answers reads this host's wall clock (starting that measurement, asynchronously).
 *
 * <p>Thread-safe; starts no thread.
 */
final class RedisServerClock implements TimeSource {
  private static final long RESYNC_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Round trips measured at first reading; the shortest sets the offset (a cold call is slow). */
  static final int START_ROUND_TRIPS = 5;

  private final ScriptRunner runner;
  private final TimeSource local;
  private final TimeSource wallClock;
  private final long timeoutNanos;
  private final ReentrantLock measuring = new ReentrantLock();
  private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);
  private final AtomicBoolean syncing = new AtomicBoolean();
  private volatile boolean measured;
  private volatile long offsetNanos;

  /** Half the round trip of the measurement in use: the true offset lies within this of it. */
  volatile long errorNanos;

  private volatile long syncedAtNanos;
  private long bestRoundTrip = Long.MAX_VALUE; // guarded by this

  RedisServerClock(ScriptRunner runner, TimeSource local) {
    this(runner, local, WallClock.INSTANCE, runner.timeoutNanos());
  }

  /**
   * @param local the monotonic source readings and round trips are measured with
   * @param wallClock epoch nanoseconds, read by {@link #estimateNanos()} before the first answer
   * @param timeoutNanos the bound of the first measurement, and of the wait for it
   */
  RedisServerClock(ScriptRunner runner, TimeSource local, TimeSource wallClock, long timeoutNanos) {
    this.runner = runner;
    this.local = local;
    this.wallClock = wallClock;
    this.timeoutNanos = timeoutNanos;
  }

  @Override
  public long nanoTime() {
    if (!measured) {
      measured(timeoutNanos);
    }
    long now = local.nanoTime();
    if (now - syncedAtNanos > RESYNC_NANOS) {
      resync();
    }
    long reading = now + offsetNanos;
    return last.accumulateAndGet(reading, Math::max);
  }

  /**
   * The server's time now without waiting: the offset's estimate once measured; before that this
   * host's wall clock, while a measurement is started. May step back when the offset is corrected.
   */
  long estimateNanos() {
    if (measured) {
      return local.nanoTime() + offsetNanos;
    }
    resync();
    return wallClock.nanoTime();
  }

  /** Whether a measurement has answered. */
  boolean isMeasured() {
    return measured;
  }

  /**
   * This clock, measured first if it is not yet (the shortest of up to {@value #START_ROUND_TRIPS}
   * round trips, all within {@code budgetNanos}, which also bounds the wait for another reader's
   * measurement).
   *
   * @throws RedisUnavailableException if Redis cannot answer in time; the next reading tries again
   */
  RedisServerClock measured(long budgetNanos) {
    if (measured) {
      return this;
    }
    long start = local.nanoTime();
    try {
      if (!measuring.tryLock(budgetNanos, TimeUnit.NANOSECONDS)) {
        throw new RedisUnavailableException("Redis call timed out", null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisUnavailableException("interrupted while waiting for Redis", e);
    }
    try {
      if (!measured) {
        measure(start, start + budgetNanos);
      }
      return this;
    } finally {
      measuring.unlock();
    }
  }

  /**
   * Measures from {@code start}, the first round trip's send (a wait for the lock makes it long).
   */
  private void measure(long start, long deadline) {
    long bestBefore = 0;
    long bestAfter = Long.MAX_VALUE;
    List<Object> bestReply = null;
    for (int i = 0; i < START_ROUND_TRIPS; i++) {
      long before = i == 0 ? start : local.nanoTime();
      List<Object> reply;
      try {
        reply = runner.await(time(), deadline - before);
      } catch (RedisUnavailableException e) {
        if (i == 0) {
          throw e;
        }
        break; // the budget is spent: keep the best measurement so far
      }
      long after = local.nanoTime();
      if (bestReply == null || after - before < bestAfter - bestBefore) {
        bestBefore = before;
        bestAfter = after;
        bestReply = reply;
      }
    }
    synchronized (this) {
      bestRoundTrip = bestAfter - bestBefore;
      take(bestBefore, bestAfter, bestReply);
      measured = true;
    }
  }

  /** One asynchronous round trip, unless one is running. */
  private void resync() {
    if (syncing.compareAndSet(false, true)) {
      long before = local.nanoTime();
      try {
        runner
            .call(time())
            .whenComplete(
                (reply, error) -> {
                  if (error == null) {
                    adopt(before, local.nanoTime(), reply);
                  }
                  syncing.set(false);
                });
      } catch (RuntimeException e) {
        syncing.set(false);
      }
    }
  }

  /** A reading of the local monotonic source, to time a round trip for {@link #adopt}. */
  long localNanoTime() {
    return local.nanoTime();
  }

  /**
   * Takes a server reading ({@code TIME}'s seconds and microseconds) answered between two local
   * readings, if its round trip took at most twice the shortest so far or the offset is 10 s old.
   */
  synchronized void adopt(long sentNanos, long answeredNanos, List<Object> reply) {
    long roundTrip = answeredNanos - sentNanos;
    boolean stale = answeredNanos - syncedAtNanos > RESYNC_NANOS;
    if (measured && roundTrip > 2 * bestRoundTrip && !stale) {
      return;
    }
    bestRoundTrip = stale || !measured ? roundTrip : Math.min(bestRoundTrip, roundTrip);
    take(sentNanos, answeredNanos, reply);
    measured = true;
  }

  private void take(long before, long after, List<Object> reply) {
    long server =
        Long.parseLong(BinaryReply.text(reply.get(0))) * 1_000_000_000L
            + Long.parseLong(BinaryReply.text(reply.get(1))) * 1_000L;
    offsetNanos = server - (before + (after - before) / 2);
    errorNanos = (after - before) / 2 + 1_000;
    syncedAtNanos = after;
  }

  private static RedisCall time() {
    return RedisCall.script(Scripts.SERVER_TIME, new String[0], new byte[0][]);
  }
}
