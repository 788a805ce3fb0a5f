package io.ringtail.keyed;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.RollingWindowContract;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;

/**
 * Core's window contract, run on one key's window ({@link KeyedWindows#window}) of in-process keyed
 * windows, compact and striped, and through the interface's default. Every sample is also recorded,
 * a little larger, into a neighbouring key through its own window: the key under test must hold
 * exactly its own samples.
 */
class KeyWindowContractTest extends RollingWindowContract {

  static KeyedWindows keyed(Duration length, int buckets, ManualTimeSource time, boolean compact) {
    return KeyedWindows.builder()
        .window(WindowConfig.builder().length(length).buckets(buckets).build())
        .timeSource(time)
        .compact(compact)
        .build();
  }

  static RollingWindow neighboured(KeyedWindows keyed) {
    return new Neighboured(keyed.window("k"), keyed.window("k/"));
  }

  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    return neighboured(keyed(length, buckets, time, true));
  }

  @Nested
  class Striped extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return neighboured(keyed(length, buckets, time, false));
    }
  }

  /** Keyed windows that do not override {@link KeyedWindows#window}: the default's key window. */
  @Nested
  class InterfaceDefault extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return neighboured(new Delegating(keyed(length, buckets, time, true)));
    }
  }

  /** A key's window whose every sample also goes, plus one, to a neighbouring key's window. */
  private record Neighboured(RollingWindow key, RollingWindow neighbour) implements RollingWindow {
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

  /** Keyed windows that pass every abstract method on and keep every default. */
  static final class Delegating implements KeyedWindows {
    private final KeyedWindows inner;

    Delegating(KeyedWindows inner) {
      this.inner = inner;
    }

    @Override
    public void record(String key, long value) {
      inner.record(key, value);
    }

    @Override
    public void recordAt(String key, long value, long timeNanos) {
      inner.recordAt(key, value, timeNanos);
    }

    @Override
    public WindowSnapshot snapshot(String key) {
      return inner.snapshot(key);
    }

    @Override
    public Map<String, WindowSnapshot> snapshots() {
      return inner.snapshots();
    }

    @Override
    public long estimatedKeys() {
      return inner.estimatedKeys();
    }

    @Override
    public long footprintBytes() {
      return inner.footprintBytes();
    }

    @Override
    public WindowConfig windowConfig() {
      return inner.windowConfig();
    }

    @Override
    public TimeSource timeSource() {
      return inner.timeSource();
    }
  }
}
