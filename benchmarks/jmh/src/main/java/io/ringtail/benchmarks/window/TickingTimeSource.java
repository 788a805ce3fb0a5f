package io.ringtail.benchmarks.window;

import io.ringtail.TimeSource;

/**
 * A time source that moves forward by a fixed step on every read. Deliberately a plain field:
 * concurrent readers may lose steps or see a slightly older reading (the window records those into
 * its live bucket), which keeps the clock itself from becoming the contended line the two-thread
 * benchmark measures. For benchmarks only.
 */
final class TickingTimeSource implements TimeSource {
  static final int READS_PER_BUCKET = 1024;
  private final long step;
  private long nanos;

  TickingTimeSource(long step) {
    this.step = step;
  }

  @Override
  public long nanoTime() {
    return nanos += step;
  }
}
