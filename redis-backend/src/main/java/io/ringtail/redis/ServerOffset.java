package io.ringtail.redis;

import io.ringtail.TimeSource;

/**
 * An estimate of the Redis server's clock in epoch microseconds between calls: a reading of the
 * local time source plus the offset the latest reply showed (a reply carries the server's {@code
 * TIME}); before the first reply, the wall clock. Thread-safe.
 */
final class ServerOffset {
  private final TimeSource local;
  private final TimeSource wallClock;
  private volatile long offsetNanos;
  private volatile boolean known;

  /**
   * @param local the monotonic source offsets are measured against
   * @param wallClock epoch nanoseconds, read only until the first reply
   */
  ServerOffset(TimeSource local, TimeSource wallClock) {
    this.local = local;
    this.wallClock = wallClock;
  }

  /** Takes the server time a reply just carried. */
  void adopt(long serverMicros) {
    offsetNanos = serverMicros * 1000 - local.nanoTime();
    known = true;
  }

  /** The estimated server time now, in microseconds. */
  long micros() {
    if (known) {
      return Math.floorDiv(local.nanoTime() + offsetNanos, 1000L);
    }
    return Math.floorDiv(wallClock.nanoTime(), 1000L);
  }
}
