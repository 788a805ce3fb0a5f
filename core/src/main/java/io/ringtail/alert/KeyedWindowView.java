package io.ringtail.alert;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;

/**
 * One key of a {@link KeyedWindows} seen as a {@link RollingWindow}, so a rule can measure it: a
 * snapshot is the key's snapshot (empty while the key holds nothing), a record goes to the key. It
 * holds nothing itself. Thread-safe as the keyed windows are.
 */
final class KeyedWindowView implements RollingWindow {
  private final KeyedWindows windows;
  private final String key;

  KeyedWindowView(KeyedWindows windows, String key) {
    this.windows = Checks.requireNonNull("windows", windows);
    this.key = Checks.requireNonEmpty("key", key);
  }

  @Override
  public void record(long value) {
    windows.record(key, value);
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    windows.recordAt(key, value, timeNanos);
  }

  @Override
  public WindowSnapshot snapshot() {
    return windows.snapshot(key);
  }

  @Override
  public Duration length() {
    return windows.windowConfig().length();
  }

  @Override
  public TimeSource timeSource() {
    return windows.timeSource();
  }

  /** 0: the view holds nothing; the key's window is counted by the keyed windows. */
  @Override
  public long footprintBytes() {
    return 0;
  }

  @Override
  public String toString() {
    return "KeyedWindowView[" + key + "]";
  }
}
