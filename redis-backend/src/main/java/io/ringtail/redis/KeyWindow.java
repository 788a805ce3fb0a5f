package io.ringtail.redis;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import java.time.Duration;

/**
 * One key of {@link RedisKeyedHistogramWindows} as a {@link RollingWindow}: records into and reads
 * that key (its {@link RedisKeyedHistogramWindows#window override} of {@code KeyedWindows.window},
 * and the single window's one key). Its snapshot publishes first, as {@link
 * RedisKeyedHistogramWindows#snapshot(String)} does. Thread-safe.
 */
final class KeyWindow implements RollingWindow {
  private final RedisKeyedHistogramWindows windows;
  private final String key;

  KeyWindow(RedisKeyedHistogramWindows windows, String key) {
    this.windows = windows;
    this.key = key;
  }

  @Override
  public void record(long value) {
    recordAt(value, windows.timeSource().nanoTime());
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    windows.recordUnchecked(key, value, timeNanos);
  }

  @Override
  public RedisHistogramSnapshot snapshot() {
    return windows.read(key);
  }

  @Override
  public Duration length() {
    return windows.windowConfig().length();
  }

  @Override
  public TimeSource timeSource() {
    return windows.timeSource();
  }

  @Override
  public long footprintBytes() {
    return 64 + windows.keyFootprintBytes(key);
  }

  @Override
  public String toString() {
    return windows + "[" + key + "]";
  }
}
