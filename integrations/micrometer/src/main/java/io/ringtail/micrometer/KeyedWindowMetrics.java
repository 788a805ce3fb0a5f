package io.ringtail.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Binds a keyed collection of windows (one {@link RollingWindow} per account, endpoint, tool...) to
 * a Micrometer {@link MeterRegistry}: each key gets the gauges {@link WindowMetrics} gives one
 * window, tagged with the key, while it is in the collection.
 *
 * <p>The collection is a {@link KeyedWindows} or any live {@link Map} view of windows (a Caffeine
 * {@code asMap()}, a {@code ConcurrentHashMap}). Keys are reconciled with the registry on every
 * scrape (when {@code P.keys} is read) and on {@link #refresh()}: a key that appeared gets its
 * meters, a key that was evicted (or whose window was replaced) has them removed. At most {@link
 * Builder#maximumKeys(int) maximumKeys} keys have meters at a time, so the meter count stays at or
 * below {@code 2 + maximumKeys * (9 + percentiles)}. While the collection holds more keys than
 * that, each reconcile keeps the keys with the most samples in their windows (as the OpenTelemetry
 * binding reports them): a new key gets meters at once only while there is room, and otherwise when
 * it becomes one of the busiest. Reconciling costs one pass over the keys (and, past the bound, a
 * snapshot of each), at scrape time only.
 *
 * <p>A key of a {@link KeyedWindows} gets its meters as soon as it gets a window ({@link
 * KeyedWindows#addKeyListener}), on the recording thread, once per new key: a scrape can only show
 * meters that exist when it starts, so a key first registered by the scrape's own reconcile would
 * show one scrape late, and a key whose window empties within one scrape interval never. A plain
 * map has no such notice: call {@link #refresh()} after adding keys to it.
 *
 * <p>{@code P} is {@code ringtail.keyed} by default (not {@code ringtail.window}: Prometheus needs
 * every meter of one name to carry the same tag keys, and these carry the key tag). Extra meters,
 * tagged {@code window=<name>} and the user's tags: {@code P.keys} (keys in the collection) and
 * {@code P.keys.bound} (keys that have meters).
 *
 * <p>Thread-safe: the collection may change while a scrape reconciles.
 */
public final class KeyedWindowMetrics<K> implements MeterBinder {
  private final Supplier<? extends Map<K, ? extends RollingWindow>> windows;
  private final KeyedWindows keyed;
  private final KeyedWindowsSource source;
  private final Object identity;
  private final MeterSpec spec;
  private final String keyTag;
  private final Function<? super K, String> keyFormatter;
  private final Function<? super K, ? extends Iterable<Tag>> keyTags;
  private final int maximumKeys;
  private final List<Binding> bindings = new CopyOnWriteArrayList<>();

  private KeyedWindowMetrics(Builder<K> b) {
    Checks.requireNonBlank("keyTag", b.keyTag);
    if (reserved(b.keyTag)) {
      throw Checks.invalid("keyTag", "a non-blank tag other than window and phi", b.keyTag);
    }
    Checks.requireNonNull("keyFormatter", b.keyFormatter);
    WindowConventions conventions = b.conventions();
    int maximumKeys = b.maximumKeys == null ? conventions.maximumKeys() : b.maximumKeys;
    WindowConventions.requireMaximumKeys(maximumKeys);
    this.spec = b.spec();
    this.keyed = b.keyed;
    this.identity = b.keyed != null ? b.keyed : b.identity;
    this.source = b.keyed == null ? null : new KeyedWindowsSource(b.keyed, spec.maxAgeNanos);
    this.windows = source == null ? b.windows : typed(source);
    this.keyTag = b.keyTag;
    this.keyFormatter = b.keyFormatter;
    this.keyTags = b.keyTags;
    this.maximumKeys = maximumKeys;
  }

  /** The tag names the binding itself uses on every meter. */
  private static boolean reserved(String tag) {
    return tag.equals(WindowConventions.WINDOW_TAG) || tag.equals(WindowConventions.PERCENTILE_TAG);
  }

  /**
   * Binds every key of {@code windows} under {@code name} with the default options, and returns the
   * binder.
   */
  public static <K> KeyedWindowMetrics<K> monitor(
      MeterRegistry registry,
      Map<K, ? extends RollingWindow> windows,
      String name,
      String... tags) {
    KeyedWindowMetrics<K> metrics = KeyedWindowMetrics.builder(windows, name).tags(tags).build();
    metrics.bindTo(registry);
    return metrics;
  }

  /**
   * Binds every key of {@code keyed} under {@code name} with the default options, and returns the
   * binder.
   */
  public static KeyedWindowMetrics<String> monitor(
      MeterRegistry registry, KeyedWindows keyed, String name, String... tags) {
    KeyedWindowMetrics<String> metrics = KeyedWindowMetrics.builder(keyed, name).tags(tags).build();
    metrics.bindTo(registry);
    return metrics;
  }

  /** A builder binding the live map view {@code windows} under {@code name}. */
  public static <K> Builder<K> builder(Map<K, ? extends RollingWindow> windows, String name) {
    Checks.requireNonNull("windows", windows);
    Builder<K> b = new Builder<>(() -> windows, null, name);
    b.identity = windows;
    return b;
  }

  /**
   * A builder binding the keys of {@code keyed} under {@code name}. {@code KeyedWindows} lists its
   * keys only by snapshotting them all, so reconciling snapshots every key held; the key's gauges
   * reuse those snapshots within {@link Builder#maxSnapshotAge maxSnapshotAge}, and a scrape costs
   * about one snapshot per key held (bound or not).
   */
  public static Builder<String> builder(KeyedWindows keyed, String name) {
    return new Builder<>(null, Checks.requireNonNull("keyed", keyed), name);
  }

  private static <K> Supplier<Map<K, RollingWindow>> typed(KeyedWindowsSource source) {
    @SuppressWarnings("unchecked")
    Supplier<Map<K, RollingWindow>> typed =
        () -> (Map<K, RollingWindow>) (Map<?, ?>) source.current();
    return typed;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Binding binding = new Binding(Checks.requireNonNull("registry", registry));
    Tags tags = Tags.of(WindowConventions.WINDOW_TAG, spec.name).and(spec.tags);
    Gauge.builder(spec.prefix + ".keys", binding, Binding::reconcile)
        .tags(tags)
        .description("Keys in the keyed collection (reading it reconciles meters with keys)")
        .strongReference(true)
        .register(registry);
    Gauge.builder(spec.prefix + ".keys.bound", binding, Binding::boundKeys)
        .tags(tags)
        .description("Keys of the keyed collection that have meters")
        .strongReference(true)
        .register(registry);
    if (bindings.isEmpty() && keyed != null) {
      keyed.addKeyListener(this::keyAppeared);
    }
    bindings.add(binding);
    BoundWindows.add(registry, identity);
    binding.reconcile();
  }

  /**
   * A key of the bound {@code KeyedWindows} got a window: its meters are registered now, on the
   * recording thread, so the next scrape shows it (registered at scrape time, a new meter name is
   * missed by the scrape that creates it, and a key that empties within one scrape interval would
   * never show).
   */
  private void keyAppeared(String key) {
    @SuppressWarnings("unchecked")
    K typedKey = (K) key;
    RollingWindow window = source.window(key);
    for (Binding binding : bindings) {
      binding.bind(typedKey, window);
    }
  }

  /**
   * Reconciles every registry this binder is bound to with the current keys now, rather than at the
   * next scrape: call it from the collection's eviction listener or a scheduler of yours.
   */
  public void refresh() {
    for (Binding binding : bindings) {
      binding.reconcile();
    }
  }

  @Override
  public String toString() {
    return "KeyedWindowMetrics["
        + spec
        + ", keyTag="
        + keyTag
        + ", maximumKeys="
        + maximumKeys
        + "]";
  }

  private final class Binding {
    private final MeterRegistry registry;
    private final Map<K, Bound> bound = new HashMap<>();

    Binding(MeterRegistry registry) {
      this.registry = registry;
    }

    synchronized double reconcile() {
      Map<K, ? extends RollingWindow> windows =
          keyed == null
              ? KeyedWindowMetrics.this.windows.get()
              : spec.failures.read(
                  spec.name,
                  "keyed windows \"" + spec.name + "\"",
                  keyed.timeSource(),
                  KeyedWindowMetrics.this.windows::get);
      if (windows == null) {
        return Double.NaN; // the collection failed: its keys keep their meters, which read NaN
      }
      for (Iterator<Map.Entry<K, Bound>> it = bound.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<K, Bound> e = it.next();
        if (windows.get(e.getKey()) != e.getValue().window) {
          e.getValue().meters.forEach(registry::remove);
          it.remove();
        }
      }
      int size = windows.size();
      if (size <= maximumKeys) {
        for (Map.Entry<K, ? extends RollingWindow> e : windows.entrySet()) {
          bind(e.getKey(), e.getValue());
        }
        return size;
      }
      Map<K, ? extends RollingWindow> busiest =
          WindowConventions.busiest(windows, maximumKeys, Binding::samples, bound::containsKey);
      for (Iterator<Map.Entry<K, Bound>> it = bound.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<K, Bound> e = it.next();
        if (!busiest.containsKey(e.getKey())) {
          e.getValue().meters.forEach(registry::remove);
          it.remove();
        }
      }
      busiest.forEach(this::bind);
      return size;
    }

    /** Registers the meters of one key unless it has them or the bound is reached. */
    synchronized void bind(K k, RollingWindow window) {
      if (bound.size() < maximumKeys && !bound.containsKey(k)) {
        List<Meter> meters = spec.register(registry, window, tagsOf(k));
        bound.put(k, new Bound(window, meters));
      }
    }

    /** A window's sample count, or 0 when it cannot give a snapshot (its gauges show why). */
    private static long samples(RollingWindow window) {
      try {
        return window.snapshot().count();
      } catch (RuntimeException e) {
        return 0;
      }
    }

    synchronized double boundKeys() {
      return bound.size();
    }
  }

  private Tags tagsOf(K k) {
    if (keyTags == null) {
      return Tags.of(keyTag, Checks.requireNonNull("formatted key", keyFormatter.apply(k)));
    }
    Tags tags = Tags.of(Checks.requireNonNull("key tags", keyTags.apply(k)));
    for (Tag t : tags) {
      if (reserved(t.getKey())) {
        throw Checks.invalid("key tags", "tags other than window and phi", tags);
      }
    }
    return tags;
  }

  private record Bound(RollingWindow window, List<Meter> meters) {}

  /** Fluent builder of a {@link KeyedWindowMetrics}; reusable, not thread-safe. */
  public static final class Builder<K> extends SpecBuilder<Builder<K>> {
    private final Supplier<? extends Map<K, ? extends RollingWindow>> windows;
    private final KeyedWindows keyed;
    private Object identity;
    private String keyTag = WindowConventions.KEY_TAG;
    private Function<? super K, String> keyFormatter = String::valueOf;
    private Function<? super K, ? extends Iterable<Tag>> keyTags;
    private Integer maximumKeys;

    private Builder(
        Supplier<? extends Map<K, ? extends RollingWindow>> windows,
        KeyedWindows keyed,
        String name) {
      super(name, WindowConventions.KEYED_PREFIX);
      this.windows = windows;
      this.keyed = keyed;
    }

    /**
     * The tag carrying the key, non-blank and neither {@code window} nor {@code phi}; {@code key}
     * unless set.
     */
    public Builder<K> keyTag(String keyTag) {
      this.keyTag = keyTag;
      return this;
    }

    /** How a key becomes its tag value; {@link String#valueOf} unless set. */
    public Builder<K> keyFormatter(Function<? super K, String> keyFormatter) {
      this.keyFormatter = keyFormatter;
      return this;
    }

    /**
     * The tags that carry a key, for keys made of several parts (an endpoint's method, URI and
     * status): used instead of {@link #keyTag} and {@link #keyFormatter}. Every key must give the
     * same tag keys (Prometheus needs one set of tag keys per meter name), none of them {@code
     * window} or {@code phi}.
     */
    public Builder<K> keyTags(Function<? super K, ? extends Iterable<Tag>> keyTags) {
      this.keyTags = Checks.requireNonNull("keyTags", keyTags);
      return this;
    }

    /**
     * The most keys that have meters at once, 1 to {@value WindowConventions#MAXIMUM_KEYS_LIMIT};
     * the conventions' (100 by default) unless set. Past it, the keys with the most samples in
     * their windows keep meters ({@link WindowConventions#busiest}), as in every binding.
     */
    public Builder<K> maximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
      return this;
    }

    /** The binder, ready to {@link KeyedWindowMetrics#bindTo bind}. */
    public KeyedWindowMetrics<K> build() {
      return new KeyedWindowMetrics<>(this);
    }
  }
}
