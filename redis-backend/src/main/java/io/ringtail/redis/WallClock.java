package io.ringtail.redis;

import io.ringtail.TimeSource;

/**
 * This host's wall clock as epoch nanoseconds (millisecond resolution, may step back): the only
 * fallback for the server's clock before Redis has answered. Stateless and thread-safe.
 */
enum WallClock implements TimeSource {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.currentTimeMillis() * 1_000_000L;
  }
}
