package io.ringtail.keyed;

import io.ringtail.CumulativeHistogram;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A rolling window per key (per endpoint, per tool, per client): the keyed form of {@link
 * RollingWindow}, with each key's window built from one {@link WindowConfig}.
 *
 * <p>Bounded: at most {@link Builder#maximumKeys(long) maximumKeys} keys are held (the least
 * valuable are evicted first), and a key that records nothing for longer than its window is
 * dropped, since nothing it holds could be in a snapshot any more. Expiry is driven by the time
 * source and done during ordinary calls; there is no background thread. A snapshot of an absent key
 * is empty.
 *
 * <p>Memory: by default each key holds a compact window ({@link RollingWindow#createCompact}),
 * which keeps per bucket only the histogram slots its samples fell in: a key with three latencies
 * in its window costs about 490 bytes all told (window, cache entry and key string; a million such
 * keys about 470 MB). With {@link Builder#compact(boolean) compact(false)} each key holds a striped
 * window of dense arrays instead: about 145 KiB per key at the per-key defaults, whatever it holds.
 * {@link #footprintBytes()} reports the windows' share. Per-key defaults: 60 s in 12 buckets, 2
 * significant digits over 1 ns to 1 h, and one stripe (contention on one key is rarely the
 * bottleneck when load spreads over many keys).
 *
 * <p>Thread-safe: any thread may record for any key while others take snapshots. Recording is one
 * hash lookup plus the window's record: a short per-key lock for compact windows, lock-free for
 * striped ones. A {@link #recorder} bound to a key skips the lookup.
 */
public interface KeyedWindows {

  /** The per-key window configuration used when none is given. */
  static WindowConfig defaultWindowConfig() {
    return CaffeineKeyedWindows.DEFAULT_WINDOW;
  }

  /** A builder with the per-key defaults. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Records a sample for {@code key} at the time source's current reading.
   *
   * @throws NullPointerException if the key is null
   * @throws IllegalArgumentException if the key is empty
   */
  void record(String key, long value);

  /** Records a sample for {@code key} at a reading already taken from the time source. */
  void recordAt(String key, long value, long timeNanos);

  /**
   * A recorder bound to {@code key}: it records as {@link #recordAt} does for that key, without
   * finding the key on every call, for a caller that records often for keys it knows (an endpoint's
   * key). Valid for the life of these windows: once its key expires or is evicted, its next sample
   * gives the key a new window, as {@link #recordAt} would. A key recorded through a recorder stays
   * at least as long as {@link #recordAt} would keep it, and at most one bucket longer. The default
   * looks the key up on every call.
   *
   * @throws NullPointerException if the key is null
   * @throws IllegalArgumentException if the key is empty
   */
  default KeyRecorder recorder(String key) {
    Checks.requireNonEmpty("key", key);
    return new KeyRecorder() {
      @Override
      public String key() {
        return key;
      }

      @Override
      public void recordAt(long value, long timeNanos) {
        KeyedWindows.this.recordAt(key, value, timeNanos);
      }

      @Override
      public void record(long value) {
        KeyedWindows.this.record(key, value);
      }
    };
  }

  /** Records for one key of a {@link KeyedWindows} ({@link KeyedWindows#recorder}). Thread-safe. */
  interface KeyRecorder {
    /** The key this recorder records for. */
    String key();

    /** Records a sample at the time source's current reading. */
    void record(long value);

    /** Records a sample at a reading already taken from the time source. */
    void recordAt(long value, long timeNanos);
  }

  /** Records the time elapsed since {@code startNanos} for {@code key}. */
  default void recordElapsedSince(String key, long startNanos) {
    long now = timeSource().nanoTime();
    recordAt(key, now - startNanos, now);
  }

  /** The window of {@code key} as of now; empty if the key holds nothing. */
  WindowSnapshot snapshot(String key);

  /**
   * The window of {@code key} as a {@link RollingWindow}, for code that takes one window (an alert
   * rule, a binder): it records into {@code key} as {@link #recordAt} does and its snapshot is
   * {@link #snapshot(String) snapshot(key)}, so other keys are untouched; its length and time
   * source are these windows'. It holds nothing itself and stays valid for the life of these
   * windows: the key may expire or be evicted in between, as with {@link #record}. Its {@link
   * RollingWindow#footprintBytes()} is the key's share of {@link #footprintBytes()}, and its {@link
   * RollingWindow#cumulativeHistogram()} the key's, where the implementation can tell them cheaply
   * (the in-process windows can); otherwise 0 and empty.
   *
   * @throws NullPointerException if the key is null
   * @throws IllegalArgumentException if the key is empty
   */
  default RollingWindow window(String key) {
    Checks.requireNonEmpty("key", key);
    return new KeyWindow(this, key);
  }

  /**
   * The keys in {@code keys} pooled as one snapshot ({@link WindowSnapshot#pooled}): an endpoint's
   * keys that differ only in their status, say. A key that holds nothing adds nothing.
   *
   * @throws IllegalArgumentException if {@code keys} is empty
   * @throws NullPointerException if it is null or holds null
   */
  default WindowSnapshot pooledSnapshot(Collection<String> keys) {
    Checks.requireNonNull("keys", keys);
    if (keys.isEmpty()) {
      throw Checks.invalid("keys", "at least one key", keys);
    }
    List<WindowSnapshot> parts = new ArrayList<>(keys.size());
    for (String key : keys) {
      parts.add(snapshot(Checks.requireNonNull("each of keys", key)));
    }
    return WindowSnapshot.pooled(parts);
  }

  /** A snapshot of every key currently held, as of now. */
  Map<String, WindowSnapshot> snapshots();

  /**
   * The distribution since creation of every key currently held (see {@link
   * RollingWindow#cumulativeHistogram()}), for histogram exports; empty unless the per-key {@link
   * #windowConfig()} keeps one. A key that expires and comes back starts again from zero, which
   * Prometheus's {@code rate()} reads as a counter reset.
   */
  default Map<String, CumulativeHistogram> cumulativeHistograms() {
    return Map.of();
  }

  /**
   * How many keys are held, approximately: an expired key may be counted for about a second more
   * (snapshots never show it).
   */
  long estimatedKeys();

  /** Bytes every held window occupies, summed (excluding the keys and the map). */
  long footprintBytes();

  /**
   * Asks to be told each time a key gets a window: its first sample, or its first after it expired
   * or was evicted. Called on the recording thread after the sample is recorded, so a binder can
   * publish a key before anything reads it (KeyedWindowMetrics registers its meters then). The
   * listener must be quick and thread-safe, and may be told of one key more than once when threads
   * race on it; an exception it throws is logged and changes nothing.
   *
   * @return whether this implementation reports new keys; the default reports none and returns
   *     false
   * @throws NullPointerException if listener is null
   */
  default boolean addKeyListener(Consumer<String> listener) {
    Checks.requireNonNull("listener", listener);
    return false;
  }

  /** The per-key window configuration. */
  WindowConfig windowConfig();

  /** The time source every window reads. */
  TimeSource timeSource();

  /** Fluent, reusable builder; {@link #build()} validates. */
  final class Builder {
    WindowConfig window = CaffeineKeyedWindows.DEFAULT_WINDOW;
    long maximumKeys = 100_000;
    TimeSource timeSource = TimeSource.system();
    boolean compact = true;

    private Builder() {}

    /** The configuration of each key's window. */
    public Builder window(WindowConfig window) {
      this.window = window;
      return this;
    }

    /** The most keys held, at least 1; default 100,000. */
    public Builder maximumKeys(long maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /** The time source every window reads. */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      return this;
    }

    /**
     * Whether each key's window is a compact window ({@link RollingWindow#createCompact}) (the
     * default: memory grows with what the key holds, one lock per key) or a striped {@link
     * RollingWindow#create window} (fixed dense arrays per key, lock-free recording: for a few very
     * hot keys).
     */
    public Builder compact(boolean compact) {
      this.compact = compact;
      return this;
    }

    /** Validates and builds an in-process keyed window. */
    public KeyedWindows build() {
      Checks.requireNonNull("window", window);
      Checks.requirePositive("maximumKeys", maximumKeys);
      Checks.requireNonNull("timeSource", timeSource);
      return new CaffeineKeyedWindows(this);
    }
  }
}
