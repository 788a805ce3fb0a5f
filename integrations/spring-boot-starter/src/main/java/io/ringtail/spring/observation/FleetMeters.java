package io.ringtail.spring.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConventions;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.micrometer.KeyedWindowMetrics;
import io.ringtail.micrometer.WindowMeters;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The meters of one fleet-wide window, exported the way a fleet's monitoring needs them:
 *
 * <ul>
 *   <li>every process exports <em>its own</em> totals per key, as counters under the window's
 *       prefix ({@code ringtail.http.server.requests.recorded}...), which a monitoring system sums
 *       over the fleet; a key this process never recorded has none (no NaN, no zero series per
 *       pod);
 *   <li>the <em>fleet's</em> statistics of a key (samples, sum, mean, min, max, percentiles) are
 *       gauges under {@code ringtail.fleet.} and the prefix, exported only by the process that
 *       merges the key's group ({@link RedisKeyedHistogramWindows#owns}), read from the summary it
 *       wrote last: each fleet series exists once in the fleet, and a scrape makes no Redis call.
 * </ul>
 *
 * <p>When a group's lease moves (its holder stopped or died), the old holder's fleet series stop
 * and the new holder's start within two publish intervals (a gap of up to that long, or an overlap
 * of one scrape with both showing the same numbers); {@code max by (...)} over the fleet series
 * reads through either.
 *
 * <p>Thread-safe.
 */
final class FleetMeters implements MeterBinder {
  /** How long one read of the owned summaries or totals serves a scrape's gauges. */
  private static final long REUSE_NANOS = Duration.ofSeconds(1).toNanos();

  private final KeyedWindowMetrics<String> own;
  private final KeyedWindowMetrics<String> fleet;

  private FleetMeters(KeyedWindowMetrics<String> own, KeyedWindowMetrics<String> fleet) {
    this.own = own;
    this.fleet = fleet;
  }

  /**
   * The meters of {@code keyed}, named {@code name}: its totals under {@code prefix}, its owned
   * summaries under {@code "ringtail.fleet." + prefix without "ringtail."}, each key's tags as
   * {@code keyTags} gives them, at most {@code maximumKeys} keys of each.
   */
  static FleetMeters of(
      RedisKeyedHistogramWindows keyed,
      String name,
      String prefix,
      Function<String, ? extends Iterable<Tag>> keyTags,
      WindowConventions conventions,
      int maximumKeys) {
    TimeSource time = keyed.timeSource();
    Duration length = keyed.windowConfig().length();
    // keys this process started to hold and has not drained yet: their counters start at zero
    Map<String, Long> noticed = new ConcurrentHashMap<>();
    View totals =
        new View(
            () -> {
              Map<String, WindowTotals> drained = keyed.totals();
              long now = time.nanoTime();
              noticed.keySet().removeAll(drained.keySet());
              noticed.values().removeIf(at -> now - at > length.toNanos());
              Map<String, WindowSnapshot> out = totalsOf(drained, now);
              noticed.keySet().forEach(key -> out.putIfAbsent(key, new Totals(NONE, now)));
              return out;
            },
            keyed::record,
            length,
            time);
    View owned = new View(keyed::ownedSummaries, keyed::record, length, time);
    FleetMeters meters =
        new FleetMeters(
            KeyedWindowMetrics.builder(totals, name)
                .prefix(prefix)
                .keyTags(keyTags)
                .conventions(conventions)
                .maximumKeys(maximumKeys)
                .meters(WindowMeters.TOTALS)
                .build(),
            KeyedWindowMetrics.builder(owned, name)
                .prefix(fleetPrefix(prefix))
                .keyTags(keyTags)
                .conventions(conventions)
                .maximumKeys(maximumKeys)
                .meters(WindowMeters.STATISTICS)
                .build());
    // a key's counters exist from the scrape after its first sample, at zero until drained, so
    // that a monitoring system's rate sees every sample
    keyed.addKeyListener(
        key -> {
          noticed.put(key, time.nanoTime());
          meters.own.refresh();
        });
    return meters;
  }

  /**
   * The meters of the single fleet window {@code window} named {@code name}: its totals under
   * {@code prefix} and, where this process merges it, its statistics under the fleet prefix; no key
   * tag.
   */
  static FleetMeters of(
      RedisHistogramWindow window, String name, String prefix, WindowConventions conventions) {
    TimeSource time = window.timeSource();
    View totals =
        new View(
            () -> Map.of(name, new Totals(window.totals(), time.nanoTime())),
            (key, value) -> window.record(value),
            window.length(),
            time);
    View owned =
        new View(
            () -> window.ownedSummary().map(s -> Map.of(name, s)).orElse(Map.of()),
            (key, value) -> window.record(value),
            window.length(),
            time);
    Function<String, Iterable<Tag>> noTags = key -> Set.of();
    return new FleetMeters(
        KeyedWindowMetrics.builder(totals, name)
            .prefix(prefix)
            .keyTags(noTags)
            .conventions(conventions)
            .maximumKeys(1)
            .meters(WindowMeters.TOTALS)
            .build(),
        KeyedWindowMetrics.builder(owned, name)
            .prefix(fleetPrefix(prefix))
            .keyTags(noTags)
            .conventions(conventions)
            .maximumKeys(1)
            .meters(WindowMeters.STATISTICS)
            .build());
  }

  /**
   * The meters of a window bean named {@code name} if it is fleet-wide ({@link
   * RedisHistogramWindow} under {@code ringtail.window}, {@link RedisKeyedHistogramWindows} under
   * {@code ringtail.keyed} with the key as tag {@code key}, as their in-process kin); null
   * otherwise.
   */
  static FleetMeters ofBean(Object bean, String name, WindowConventions conventions) {
    if (bean instanceof RedisHistogramWindow window) {
      return of(window, name, "ringtail.window", conventions);
    }
    if (bean instanceof RedisKeyedHistogramWindows keyed) {
      return of(
          keyed,
          name,
          "ringtail.keyed",
          key -> Tags.of("key", key),
          conventions,
          conventions.maximumKeys());
    }
    return null;
  }

  /**
   * {@code ringtail.x} as {@code ringtail.fleet.x}; another prefix {@code p} as {@code p.fleet}.
   */
  static String fleetPrefix(String prefix) {
    return prefix.startsWith("ringtail.")
        ? "ringtail.fleet." + prefix.substring("ringtail.".length())
        : prefix + ".fleet";
  }

  private static final WindowTotals NONE = new WindowTotals(0, 0, 0);

  private static Map<String, WindowSnapshot> totalsOf(Map<String, WindowTotals> totals, long now) {
    Map<String, WindowSnapshot> out = new LinkedHashMap<>(totals.size() * 2);
    totals.forEach((key, total) -> out.put(key, new Totals(total, now)));
    return out;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    own.bindTo(registry);
    fleet.bindTo(registry);
  }

  @Override
  public String toString() {
    return "FleetMeters[" + own + ", " + fleet + "]";
  }

  /** A key recording into {@code key}'s window; what a view's windows record through. */
  @FunctionalInterface
  interface Recorder {
    void record(String key, long value);
  }

  /**
   * A live map of key to window whose snapshots are what {@code read} gave, read again when a
   * scrape reconciles its keys or when older than {@link #REUSE_NANOS}: one read serves every gauge
   * of a scrape. Each key's window keeps its identity while the key stays, so its meters stay.
   */
  static final class View extends AbstractMap<String, RollingWindow> {
    private final Supplier<? extends Map<String, ? extends WindowSnapshot>> read;
    private final Recorder recorder;
    private final Duration length;
    private final TimeSource time;
    private final Map<String, KeyView> windows = new ConcurrentHashMap<>();
    private volatile Map<String, ? extends WindowSnapshot> last = Map.of();
    private volatile long lastAt;
    private volatile boolean hasRead;

    View(
        Supplier<? extends Map<String, ? extends WindowSnapshot>> read,
        Recorder recorder,
        Duration length,
        TimeSource time) {
      this.read = read;
      this.recorder = recorder;
      this.length = length;
      this.time = time;
    }

    /** Reads again; the windows of keys that left are let go. */
    private synchronized Map<String, ? extends WindowSnapshot> refresh() {
      Map<String, ? extends WindowSnapshot> now = Objects.requireNonNull(read.get(), "read");
      last = now;
      lastAt = time.nanoTime();
      hasRead = true;
      windows.keySet().retainAll(now.keySet());
      return now;
    }

    private Map<String, ? extends WindowSnapshot> recent() {
      Map<String, ? extends WindowSnapshot> now = last;
      return hasRead && time.nanoTime() - lastAt <= REUSE_NANOS ? now : refresh();
    }

    @Override
    public Set<Entry<String, RollingWindow>> entrySet() {
      Map<String, RollingWindow> out = new LinkedHashMap<>();
      for (String key : refresh().keySet()) {
        out.put(key, windows.computeIfAbsent(key, KeyView::new));
      }
      return out.entrySet();
    }

    @Override
    public int size() {
      return recent().size();
    }

    @Override
    public RollingWindow get(Object key) {
      return recent().containsKey(key) ? windows.computeIfAbsent((String) key, KeyView::new) : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return recent().containsKey(key);
    }

    /** One key's window: its snapshot is the key's entry of the last read (empty if it left). */
    private final class KeyView implements RollingWindow {
      private final String key;

      KeyView(String key) {
        this.key = key;
      }

      @Override
      public WindowSnapshot snapshot() {
        WindowSnapshot s = recent().get(key);
        return s != null ? s : new Totals(NONE, time.nanoTime());
      }

      @Override
      public void record(long value) {
        recorder.record(key, value);
      }

      @Override
      public void recordAt(long value, long timeNanos) {
        recorder.record(key, value); // a fleet window records at its own time base
      }

      @Override
      public Duration length() {
        return length;
      }

      @Override
      public TimeSource timeSource() {
        return time;
      }

      @Override
      public long footprintBytes() {
        return 0;
      }
    }
  }

  /**
   * What this process took in of a key since it started to hold it, as a snapshot with those totals
   * and no rolling statistics: what the per-process counters read.
   */
  private record Totals(WindowTotals total, long atNanos) implements WindowSnapshot {
    @Override
    public long count() {
      return 0;
    }

    @Override
    public long sum() {
      return 0;
    }

    @Override
    public long rejected() {
      return 0;
    }

    @Override
    public double min() {
      return Double.NaN;
    }

    @Override
    public double max() {
      return Double.NaN;
    }

    @Override
    public double valueAtPercentile(double percentile) {
      return Double.NaN;
    }

    @Override
    public long startNanos() {
      return atNanos;
    }

    @Override
    public long endNanos() {
      return atNanos;
    }

    @Override
    public Optional<WindowTotals> totals() {
      return Optional.of(total);
    }
  }
}
