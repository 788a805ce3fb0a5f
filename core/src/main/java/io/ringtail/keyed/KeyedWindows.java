package io.ringtail.keyed;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import java.util.Map;

/**
 * A rolling window per key (per endpoint, per tool, per client): the keyed form of
 * {@link RollingWindow}, with each key's window built from one {@link WindowConfig}.
 *
 * <p>Bounded: at most {@link Builder#maximumKeys(long) maximumKeys} keys are held (the least
 * valuable are evicted first), and a key that records nothing for longer than its window is
 * dropped, since nothing it holds could be in a snapshot any more. Expiry is driven by the
 * time source and done during ordinary calls; there is no background thread. A snapshot of an
 * absent key is empty.
 *
 * <p>Memory: each key holds one window, whose size {@link RollingWindow#footprintBytes()}
 * reports (about {@code 8 × countsArrayLength × (stripes + 1)} bytes plus the values its buckets
 * saw). The per-key default is therefore one stripe (contention on one key is rarely the
 * bottleneck when load spreads over many), 60 s in 12 buckets and 2 significant digits over
 * 1 ns to 1 h: about 72 KiB per key, 720 MiB for 10,000 keys. Narrow
 * {@link WindowConfig#highestTrackableValue()} or lower the significant digits for more keys.
 *
 * <p>Thread-safe: any thread may record for any key while others take snapshots; recording has
 * the cost and guarantees of {@link RollingWindow#recordAt}, plus one hash lookup.
 */
public interface KeyedWindows {

  /** The per-key window configuration used when none is given. */
  static WindowConfig defaultWindowConfig() {
    return KeyedStripedWindows.DEFAULT_WINDOW;
  }

  /** A builder with the per-key defaults. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Records a sample for {@code key} at the time source's current reading.
   *
   * @throws IllegalArgumentException if the key is null or empty
   */
  void record(String key, long value);

  /** Records a sample for {@code key} at a reading already taken from the time source. */
  void recordAt(String key, long value, long timeNanos);

  /** Records the time elapsed since {@code startNanos} for {@code key}. */
  default void recordElapsedSince(String key, long startNanos) {
    long now = timeSource().nanoTime();
    recordAt(key, now - startNanos, now);
  }

  /** The window of {@code key} as of now; empty if the key holds nothing. */
  WindowSnapshot snapshot(String key);

  /** A snapshot of every key currently held, as of now. */
  Map<String, WindowSnapshot> snapshots();

  /** How many keys are held, approximately (expired keys may linger until the next call). */
  long estimatedKeys();

  /** Bytes every held window occupies, summed (excluding the keys and the map). */
  long footprintBytes();

  /** The per-key window configuration. */
  WindowConfig windowConfig();

  /** The time source every window reads. */
  TimeSource timeSource();

  /** Fluent, reusable builder; {@link #build()} validates. */
  final class Builder {
    WindowConfig window = KeyedStripedWindows.DEFAULT_WINDOW;
    long maximumKeys = 10_000;
    TimeSource timeSource = TimeSource.system();

    private Builder() {}

    /** The configuration of each key's window. */
    public Builder window(WindowConfig window) {
      this.window = window;
      return this;
    }

    /** The most keys held, at least 1; default 10,000. */
    public Builder maximumKeys(long maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /** The time source every window reads. */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      return this;
    }

    /** Validates and builds an in-process keyed window. */
    public KeyedWindows build() {
      Checks.requireNonNull("window", window);
      Checks.requirePositive("maximumKeys", maximumKeys);
      Checks.requireNonNull("timeSource", timeSource);
      return new KeyedStripedWindows(this);
    }
  }
}
