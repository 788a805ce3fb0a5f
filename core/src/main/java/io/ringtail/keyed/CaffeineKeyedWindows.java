package io.ringtail.keyed;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
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
import java.util.Optional;
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
 *
 * <p>A {@link #recorder} keeps its key's window and records into it directly, reading the cache
 * (which renews the key) at most once a bucket width of the time source, and again once the window
 * was evicted or expired. Its key lives one bucket width longer after each read, so that the
 * samples recorded between reads stay as long as they can be in a snapshot.
 */
final class CaffeineKeyedWindows implements KeyedWindows {
  static final WindowConfig DEFAULT_WINDOW =
      WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).stripes(1).build();

  private final WindowConfig config;
  private final TimeSource timeSource;
  private final boolean compact;
  private final Cache<String, Held> windows;
  private final long lifetimeNanos;
  private final long renewalNanos;
  private final RollingWindow empty;
  private final List<Consumer<String>> keyListeners = new CopyOnWriteArrayList<>();

  /** Held once: a method reference made per call would allocate on every record. */
  private final Function<String, Held> factory = key -> new Held(newWindow(key), false);

  private final Function<String, Held> boundFactory = key -> new Held(newWindow(key), true);

  CaffeineKeyedWindows(KeyedWindows.Builder b) {
    this.config = b.window;
    this.timeSource = b.timeSource;
    this.compact = b.compact;
    this.lifetimeNanos = config.length().toNanos();
    this.renewalNanos = config.bucketWidth().toNanos();
    this.windows =
        Caffeine.newBuilder()
            .maximumSize(b.maximumKeys)
            .expireAfter(new AfterAccess())
            .evictionListener((String key, Held held, RemovalCause cause) -> held.evicted = true)
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
    Held held = windows.getIfPresent(key);
    if (held != null) {
      held.window.recordAt(value, timeNanos);
      return;
    }
    windows.get(key, factory).window.recordAt(value, timeNanos);
    tellListeners(key);
  }

  private void tellListeners(String key) {
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
    Held held = windows.policy().getIfPresentQuietly(key);
    return (held == null ? empty : held.window).snapshot();
  }

  /** The key's window; it reads the key's share of the footprint and its cumulative histogram. */
  @Override
  public RollingWindow window(String key) {
    Checks.requireNonEmpty("key", key);
    return new HeldKeyWindow(key);
  }

  @Override
  public Map<String, WindowSnapshot> snapshots() {
    Map<String, WindowSnapshot> out = new LinkedHashMap<>();
    windows.asMap().forEach((k, h) -> out.put(k, h.window.snapshot()));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public Map<String, CumulativeHistogram> cumulativeHistograms() {
    if (!windowConfig().cumulativeHistogram()) {
      return Map.of();
    }
    Map<String, CumulativeHistogram> out = new LinkedHashMap<>();
    windows.asMap().forEach((k, h) -> h.window.cumulativeHistogram().ifPresent(c -> out.put(k, c)));
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
    for (Held h : windows.asMap().values()) {
      bytes += h.window.footprintBytes();
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

  @Override
  public KeyRecorder recorder(String key) {
    Checks.requireNonEmpty("key", key);
    return new BoundRecorder(key);
  }

  /** A key's window that reads the key's held window quietly (without keeping the key alive). */
  private final class HeldKeyWindow extends KeyWindow {
    HeldKeyWindow(String key) {
      super(CaffeineKeyedWindows.this, key);
    }

    @Override
    public Optional<CumulativeHistogram> cumulativeHistogram() {
      Held held = windows.policy().getIfPresentQuietly(key);
      return (held == null ? empty : held.window).cumulativeHistogram();
    }

    @Override
    public long footprintBytes() {
      Held held = windows.policy().getIfPresentQuietly(key);
      return held == null ? 0 : held.window.footprintBytes();
    }
  }

  /**
   * A key's window in the cache; {@code bound} once a recorder keeps it (it then lives a renewal
   * longer after each read), {@code evicted} once the cache dropped it.
   */
  private static final class Held {
    final RollingWindow window;
    volatile boolean bound;
    volatile boolean evicted;

    Held(RollingWindow window, boolean bound) {
      this.window = window;
      this.bound = bound;
    }
  }

  /** Expiry after each write or read: the window length, a renewal more for a bound window. */
  private final class AfterAccess implements Expiry<String, Held> {
    private long lifetime(Held held) {
      return held.bound ? lifetimeNanos + renewalNanos : lifetimeNanos;
    }

    @Override
    public long expireAfterCreate(String key, Held held, long now) {
      return lifetime(held);
    }

    @Override
    public long expireAfterUpdate(String key, Held held, long now, long remaining) {
      return lifetime(held);
    }

    @Override
    public long expireAfterRead(String key, Held held, long now, long remaining) {
      return lifetime(held);
    }
  }

  /**
   * A recorder that keeps its key's window and reads the cache at most once a renewal (the fields
   * race benignly: a stale read only renews again).
   */
  private final class BoundRecorder implements KeyRecorder {
    private final String key;
    private volatile Held held;
    private volatile long renewedAt;

    BoundRecorder(String key) {
      this.key = key;
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public void record(long value) {
      recordAt(value, timeSource.nanoTime());
    }

    @Override
    public void recordAt(long value, long timeNanos) {
      Held h = held;
      if (h == null || h.evicted || timeNanos - renewedAt >= renewalNanos) {
        renew(value, timeNanos);
        return;
      }
      h.window.recordAt(value, timeNanos);
    }

    /** Reads the cache (renewing the key, or giving it a window), then records. */
    private void renew(long value, long timeNanos) {
      Held h = windows.getIfPresent(key);
      boolean created = h == null;
      if (created) {
        h = windows.get(key, boundFactory);
      }
      if (!h.bound) { // a window recordAt made
        h.bound = true;
        windows.getIfPresent(key); // its expiry now counts the renewal
      }
      held = h;
      renewedAt = timeNanos;
      h.window.recordAt(value, timeNanos);
      if (created) {
        tellListeners(key);
      }
    }
  }
}
