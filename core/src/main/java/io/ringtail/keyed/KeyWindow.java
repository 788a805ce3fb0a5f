package io.ringtail.keyed;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import java.time.Duration;

/**
 * One key of a {@link KeyedWindows} as a {@link RollingWindow} ({@link KeyedWindows#window}): a
 * record goes to the key, a snapshot is the key's snapshot (empty while the key holds nothing). It
 * holds nothing itself, so its footprint is 0 unless the keyed windows can tell the key's share.
 * Thread-safe as the keyed windows are.
 */
class KeyWindow implements RollingWindow {
  final KeyedWindows keyed;
  final String key;

  KeyWindow(KeyedWindows keyed, String key) {
    this.keyed = keyed;
    this.key = key;
  }

  @Override
  public void record(long value) {
    keyed.record(key, value);
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    keyed.recordAt(key, value, timeNanos);
  }

  @Override
  public WindowSnapshot snapshot() {
    return keyed.snapshot(key);
  }

  @Override
  public Duration length() {
    return keyed.windowConfig().length();
  }

  @Override
  public TimeSource timeSource() {
    return keyed.timeSource();
  }

  @Override
  public long footprintBytes() {
    return 0;
  }

  @Override
  public String toString() {
    return "KeyWindow[" + key + "]";
  }
}
