package io.ringtail.redis;

import io.ringtail.TimeSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} reading the Redis server's clock in epoch nanoseconds, without a round trip
 * per reading: a local monotonic reading plus an offset measured against Redis {@code TIME} (at the
 * midpoint of the round trip; at start, the shortest of {@value #START_ROUND_TRIPS} round trips),
 * re-measured asynchronously every 10 s. Every process using it shares one time base whatever its
 * own wall clock says. Readings never go backwards. Thread-safe; starts no thread.
 */
final class RedisServerClock implements TimeSource {
  private static final long RESYNC_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Round trips measured at start; the shortest sets the offset (a cold first call is slow). */
  static final int START_ROUND_TRIPS = 5;

  private final ScriptRunner runner;
  private final TimeSource local;
  private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);
  private final AtomicBoolean syncing = new AtomicBoolean();
  private volatile long offsetNanos;

  /** Half the round trip of the measurement in use: the true offset lies within this of it. */
  volatile long errorNanos;

  private volatile long syncedAtNanos;

  RedisServerClock(ScriptRunner runner, TimeSource local) {
    this(runner, local, runner.timeoutNanos());
  }

  /**
   * Measures the offset (best of up to {@value #START_ROUND_TRIPS} round trips), all within {@code
   * timeoutNanos}.
   */
  RedisServerClock(ScriptRunner runner, TimeSource local, long timeoutNanos) {
    this.runner = runner;
    this.local = local;
    long before = local.nanoTime();
    long deadline = before + timeoutNanos;
    long bestRoundTrip = Long.MAX_VALUE;
    for (int i = 0; i < START_ROUND_TRIPS; i++) {
      if (i > 0) {
        before = local.nanoTime();
      }
      List<Object> reply;
      try {
        reply =
            runner.await(
                RedisCall.script(Scripts.SERVER_TIME, new String[0], new byte[0][]),
                deadline - before);
      } catch (RedisUnavailableException e) {
        if (i == 0) {
          throw e;
        }
        break; // the budget is spent: keep the best measurement so far
      }
      long after = local.nanoTime();
      if (after - before < bestRoundTrip) {
        bestRoundTrip = after - before;
        adopt(before, after, reply);
      }
    }
  }

  @Override
  public long nanoTime() {
    long now = local.nanoTime();
    if (now - syncedAtNanos > RESYNC_NANOS && syncing.compareAndSet(false, true)) {
      long before = now;
      runner
          .call(RedisCall.script(Scripts.SERVER_TIME, new String[0], new byte[0][]))
          .whenComplete(
              (reply, error) -> {
                if (error == null) {
                  adopt(before, local.nanoTime(), reply);
                }
                syncing.set(false);
              });
    }
    long reading = now + offsetNanos;
    return last.accumulateAndGet(reading, Math::max);
  }

  private void adopt(long before, long after, List<Object> reply) {
    long server =
        Long.parseLong(BinaryReply.text(reply.get(0))) * 1_000_000_000L
            + Long.parseLong(BinaryReply.text(reply.get(1))) * 1_000L;
    offsetNanos = server - (before + (after - before) / 2);
    errorNanos = (after - before) / 2 + 1_000;
    syncedAtNanos = after;
  }
}
