package io.ringtail.micrometer;

import io.ringtail.CumulativeHistogram;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Presents a {@link KeyedWindows} as the map of windows {@link KeyedWindowMetrics} reconciles.
 *
 * <p>{@code KeyedWindows} lists its keys only through {@link KeyedWindows#snapshots()}, which
 * snapshots every key. Those snapshots are not wasted: each is kept for the key's gauges and handed
 * out once, if no older than the binder's maximum snapshot age, so a scrape that reads {@code
 * P.keys} before a key's gauges takes one snapshot per key in all. Otherwise the key's gauges take
 * their own through the key's {@link KeyedWindows#window(String) window}.
 *
 * <p>Thread-safe.
 */
final class KeyedWindowsSource {
  private final KeyedWindows keyed;
  private final long maxAgeNanos;
  private final Map<String, KeyWindow> adapters = new ConcurrentHashMap<>();
  private volatile Map<String, WindowSnapshot> listed = new ConcurrentHashMap<>();
  private volatile long listedAt;

  KeyedWindowsSource(KeyedWindows keyed, long maxAgeNanos) {
    this.keyed = keyed;
    this.maxAgeNanos = maxAgeNanos;
  }

  /** The keys held now, each with a window whose identity is stable while the key stays. */
  synchronized Map<String, RollingWindow> current() {
    Map<String, WindowSnapshot> snapshots = keyed.snapshots();
    listedAt = keyed.timeSource().nanoTime();
    listed = new ConcurrentHashMap<>(snapshots);
    adapters.keySet().retainAll(snapshots.keySet());
    Map<String, RollingWindow> view = new HashMap<>(snapshots.size() * 2);
    for (String key : snapshots.keySet()) {
      view.put(key, adapters.computeIfAbsent(key, KeyWindow::new));
    }
    return view;
  }

  /** The window standing for {@code key} while it stays (the one {@link #current} lists). */
  RollingWindow window(String key) {
    return adapters.computeIfAbsent(key, KeyWindow::new);
  }

  /**
   * The key's window ({@link KeyedWindows#window}), whose snapshot is the one {@link #current}
   * listed for the key, once and while fresh enough.
   */
  private final class KeyWindow implements RollingWindow {
    private final String key;
    private final RollingWindow window;

    KeyWindow(String key) {
      this.key = key;
      this.window = keyed.window(key);
    }

    @Override
    public WindowSnapshot snapshot() {
      WindowSnapshot s = listed.remove(key);
      if (s != null && keyed.timeSource().nanoTime() - listedAt <= maxAgeNanos) {
        return s;
      }
      return window.snapshot();
    }

    @Override
    public void record(long value) {
      window.record(value);
    }

    @Override
    public void recordAt(long value, long timeNanos) {
      window.recordAt(value, timeNanos);
    }

    @Override
    public Optional<CumulativeHistogram> cumulativeHistogram() {
      return window.cumulativeHistogram();
    }

    @Override
    public Duration length() {
      return window.length();
    }

    @Override
    public TimeSource timeSource() {
      return window.timeSource();
    }

    @Override
    public long footprintBytes() {
      return window.footprintBytes();
    }
  }
}
