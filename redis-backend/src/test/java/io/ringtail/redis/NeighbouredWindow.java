package io.ringtail.redis;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import java.time.Duration;

/**
 * One key's window of keyed windows whose every sample is also recorded, a little larger, into a
 * neighbouring key: what the contract reads must be exactly the key's own samples.
 */
final class NeighbouredWindow implements RollingWindow {
  private final RollingWindow key;
  private final RollingWindow neighbour;

  NeighbouredWindow(RollingWindow key, RollingWindow neighbour) {
    this.key = key;
    this.neighbour = neighbour;
  }

  @Override
  public void record(long value) {
    key.record(value);
    neighbour.record(value + 1);
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    key.recordAt(value, timeNanos);
    neighbour.recordAt(value + 1, timeNanos);
  }

  @Override
  public WindowSnapshot snapshot() {
    return key.snapshot();
  }

  @Override
  public Duration length() {
    return key.length();
  }

  @Override
  public TimeSource timeSource() {
    return key.timeSource();
  }

  @Override
  public long footprintBytes() {
    return key.footprintBytes();
  }
}
