package io.ringtail.redis;

import io.ringtail.TimeSource;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Redis server's clock in epoch nanoseconds, read as {@link System#nanoTime()} plus an
 * offset: one volatile read per reading, no shared write, so it costs a record no contention.
 * The offset is measured by one {@code TIME} round trip when built (falling back to this host's
 * wall clock if Redis cannot answer) and re-estimated from the server time every publication
 * reply carries, taking the replies with the shortest round trips. Readings may step back by
 * the estimate's error (about half a round trip) when the offset is corrected; the histogram
 * window records such a reading into its live bucket. Thread-safe; starts no thread.
 */
final class ServerTimeBase implements TimeSource {
  private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);
  private volatile long offsetNanos;
  private volatile boolean measured;
  private long bestRoundTrip = Long.MAX_VALUE; // guarded by this
  private long adoptedAt; // guarded by this

  ServerTimeBase(ScriptRunner runner) {
    long before = System.nanoTime();
    try {
      List<Object> reply = runner.runSync(Scripts.SERVER_TIME, new String[0], new String[0]);
      adopt(before, System.nanoTime(), (String) reply.get(0), (String) reply.get(1));
    } catch (RedisUnavailableException e) {
      offsetNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    }
  }

  @Override
  public long nanoTime() {
    return System.nanoTime() + offsetNanos;
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
