package io.ringtail.keyed;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ringtail.CumulativeHistogram;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The in-process {@link KeyedWindows}: a Caffeine cache of compact windows ({@link
 * RollingWindow#createCompact}) (or striped {@link RollingWindow}s when not compact).
 *
 * <p>Expiry is after access for the window length, on a ticker that reads the time source, and
 * Caffeine's maintenance runs on the calling thread, so no thread of ours or Caffeine's works in
 * the background. Snapshots read quietly (they do not keep a key alive): a key lives exactly as
 * long as its last sample can still be in a snapshot.
 */
final class CaffeineKeyedWindows implements KeyedWindows {
  static final WindowConfig DEFAULT_WINDOW =
      WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).stripes(1).build();

  private final WindowConfig config;
  private final TimeSource timeSource;
  private final boolean compact;
  private final Cache<String, RollingWindow> windows;
  private final RollingWindow empty;
  private final List<Consumer<String>> keyListeners = new CopyOnWriteArrayList<>();

  /** Held once: a method reference made per call would allocate on every record. */
  private final Function<String, RollingWindow> factory = this::newWindow;

  CaffeineKeyedWindows(KeyedWindows.Builder b) {
    this.config = b.window;
    this.timeSource = b.timeSource;
    this.compact = b.compact;
    this.windows =
        Caffeine.newBuilder()
            .maximumSize(b.maximumKeys)
            .expireAfterAccess(config.length())
            .ticker(timeSource::nanoTime)
            .executor(Runnable::run)
            .build();
    this.empty = RollingWindow.createCompact(config, timeSource);
  }

  @Override
  public void record(String key, long value) {
    recordAt(key, value, timeSource.nanoTime());
  }

  @Override
  public void recordAt(String key, long value, long timeNanos) {
    Checks.requireNonEmpty("key", key);
    RollingWindow window = windows.getIfPresent(key);
    if (window != null) {
      window.recordAt(value, timeNanos);
      return;
    }
    windows.get(key, factory).recordAt(value, timeNanos);
    if (!keyListeners.isEmpty()) {
      for (Consumer<String> listener : keyListeners) {
        try {
          listener.accept(key);
        } catch (RuntimeException e) {
          System.getLogger(KeyedWindows.class.getName())
              .log(Level.WARNING, "key listener threw on new key " + key, e);
        }
      }
    }
  }

  @Override
  public boolean addKeyListener(Consumer<String> listener) {
    keyListeners.add(Checks.requireNonNull("listener", listener));
    return true;
  }

  private RollingWindow newWindow(String key) {
    return compact
        ? RollingWindow.createCompact(config, timeSource)
        : RollingWindow.create(config, timeSource);
  }

  @Override
  public WindowSnapshot snapshot(String key) {
    Checks.requireNonEmpty("key", key);
    RollingWindow window = windows.policy().getIfPresentQuietly(key);
    return (window == null ? empty : window).snapshot();
  }

  @Override
  public Map<String, WindowSnapshot> snapshots() {
    Map<String, WindowSnapshot> out = new LinkedHashMap<>();
    windows.asMap().forEach((k, w) -> out.put(k, w.snapshot()));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public Map<String, CumulativeHistogram> cumulativeHistograms() {
    if (!windowConfig().cumulativeHistogram()) {
      return Map.of();
    }
    Map<String, CumulativeHistogram> out = new LinkedHashMap<>();
    windows.asMap().forEach((k, w) -> w.cumulativeHistogram().ifPresent(h -> out.put(k, h)));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public long estimatedKeys() {
    windows.cleanUp();
    return windows.estimatedSize();
  }

  @Override
  public long footprintBytes() {
    long bytes = 0;
    for (RollingWindow w : windows.asMap().values()) {
      bytes += w.footprintBytes();
    }
    return bytes;
  }

  @Override
  public WindowConfig windowConfig() {
    return config;
  }

  @Override
  public TimeSource timeSource() {
    return timeSource;
  }
}
