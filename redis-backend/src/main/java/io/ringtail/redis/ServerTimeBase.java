package io.ringtail.redis;

import io.ringtail.TimeSource;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Redis server's clock in epoch nanoseconds, read as a local monotonic reading plus an offset:
 * one volatile read per reading, no shared write, so it costs a record no contention. The offset is
 * measured by one {@code TIME} round trip when built (falling back to this host's wall clock if
 * Redis cannot answer) and re-estimated from the server time every publication reply carries,
 * taking the replies with the shortest round trips. Readings may step back by the estimate's error
 * (about half a round trip) when the offset is corrected; the histogram window records such a
 * reading into its live bucket. Thread-safe; starts no thread.
 */
final class ServerTimeBase implements TimeSource {
  private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);
  private final TimeSource local;
  private volatile long offsetNanos;
  private volatile boolean measured;
  private long bestRoundTrip = Long.MAX_VALUE; // guarded by this
  private long adoptedAt; // guarded by this

  ServerTimeBase(ScriptRunner runner) {
    this(runner, TimeSource.system(), WallClock.INSTANCE);
  }

  /**
   * @param local the monotonic source readings and round trips are measured with
   * @param wallClock epoch nanoseconds, read only if Redis cannot answer the first measurement
   */
  ServerTimeBase(ScriptRunner runner, TimeSource local, TimeSource wallClock) {
    this.local = local;
    long before = local.nanoTime();
    try {
      List<Object> reply =
          runner.await(
              RedisCall.script(Scripts.SERVER_TIME, new String[0], new byte[0][]),
              runner.timeoutNanos());
      adopt(
          before, local.nanoTime(), BinaryReply.text(reply.get(0)), BinaryReply.text(reply.get(1)));
    } catch (RedisUnavailableException e) {
      offsetNanos = wallClock.nanoTime() - local.nanoTime();
    }
  }

  @Override
  public long nanoTime() {
    return local.nanoTime() + offsetNanos;
  }

  /** A reading of the local monotonic source, to time a round trip for {@link #adopt}. */
  long localNanoTime() {
    return local.nanoTime();
  }

  /** Whether the offset comes from Redis rather than this host's wall clock. */
  boolean measured() {
    return measured;
  }

  /** Takes a server reading (seconds, microseconds) answered between two local readings. */
  synchronized void adopt(long sentNanos, long answeredNanos, String seconds, String micros) {
    long roundTrip = answeredNanos - sentNanos;
    boolean stale = answeredNanos - adoptedAt > REFRESH_NANOS;
    if (measured && roundTrip > 2 * bestRoundTrip && !stale) {
      return;
    }
    bestRoundTrip = stale ? roundTrip : Math.min(bestRoundTrip, roundTrip);
    long server = Long.parseLong(seconds) * 1_000_000_000L + Long.parseLong(micros) * 1_000L;
    offsetNanos = server - (sentNanos + roundTrip / 2);
    adoptedAt = answeredNanos;
    measured = true;
  }
}
