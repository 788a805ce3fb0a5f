package io.ringtail.spring.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.micrometer.KeyedWindowMetrics;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.RingtailProperties;
import io.ringtail.spring.SharedTiming;
import io.ringtail.spring.internal.StartTimes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Rolling windows of the application's own Micrometer {@link Observation}s, with no code: every
 * observation whose name is configured ({@code http.server.requests} by default: every HTTP request
 * Spring MVC or WebFlux serves) is timed from start to stop into a {@link KeyedWindows}, keyed by
 * its low-cardinality key values (for HTTP: method, URI template, status, outcome), and published
 * like any keyed window: {@code ringtail.<observation>.percentile{phi="0.95",
 * uri="/orders/{id}",...}} and the other gauges and counters of {@link KeyedWindowMetrics}.
 *
 * <p>Spring Boot registers this {@link ObservationHandler} bean on its {@code ObservationRegistry}
 * and applies it as a {@link MeterBinder}. Keys are bounded twice: each observation holds at most
 * {@code maximumKeys} keys (least valuable evicted first), and as many have meters (at most {@value
 * WindowConventions#MAXIMUM_KEYS_LIMIT}). Key values named in {@code ignoredTags} ({@code
 * exception} and {@code error} by default) are left out of the key. Built by the starter, the
 * windows are fleet-wide when a Redis backend is configured (one {@code RedisKeyedHistogramWindows}
 * per observation, named after it) and in-process otherwise (each instance reports its own). Fleet
 * windows are exported once for the fleet: each instance exports its own counters under the prefix
 * above, and the fleet's gauges of a key ({@code ringtail.fleet.<observation>.percentile}...) come
 * only from the instance that merges the key, read from the summary it wrote (no Redis call per
 * scrape).
 *
 * <p>Durations are measured on this handler's time source; a sample is recorded at the time of its
 * window's own time base (the Redis server's clock for a fleet window). Closing closes the windows.
 *
 * <p>Thread-safe. The stop path reads the clock, finds the key of the key values (without
 * allocating once they were seen: {@link ObservationKeys}) and records; a new key registers its
 * meters on the stopping thread, once. The start path puts the start time in the context. Built by
 * the public constructor, each key's window is a striped window starting with one stripe (lock-free
 * recording; a window whose writers collide adds stripes, up to the processors, so a hot endpoint
 * served by many threads does not serialize on it): about 145 KiB per key at the default precision
 * and one stripe, each stripe added under contention about 72 KiB more, and a key idle for a window
 * is dropped.
 */
public final class ObservationWindows
    implements ObservationHandler<Observation.Context>,
        ObservedWindows,
        MeterBinder,
        SmartInitializingSingleton,
        AutoCloseable {
  private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*");

  private final Set<String> names;
  private final String[] nameArray; // the same (interned), for the request path: no hashing
  private final Function<String, ? extends KeyedWindows> windowOf;
  private volatile Map<String, KeyedWindows> windows; // built once, on first need
  private volatile Route[] routes; // the same, with each one's key resolver, as nameArray
  private final Set<String> ignoredTags;

  /** Key values left out of a key: the ignored ones and the windows' own tag names. */
  private final Set<String> excluded;

  private final TimeSource time;
  private final WindowConventions conventions;
  private final int maximumKeys;
  private final Consumer<KeyedWindows> closer;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final StartTimes starts = new StartTimes(256, ObservationKeys.SCRATCH);
  private final Meters meters;
  private volatile Supplier<? extends List<SharedTiming>> sharing = List::of;

  /** Binds one observation's windows to a registry. */
  @FunctionalInterface
  interface Meters {
    /** Every key's gauges and counters, as {@link KeyedWindowMetrics} gives them. */
    Meters OWN =
        (name, keyed, prefix, conventions, maximumKeys) ->
            KeyedWindowMetrics.builder(keyed, name)
                .prefix(prefix)
                .keyTags(ObservationWindows::tagsOf)
                .conventions(conventions)
                .maximumKeys(maximumKeys)
                .build();

    /**
     * The binder of observation {@code name}'s windows {@code keyed} under {@code prefix}, each
     * key's tags as {@link #tagsOf} reads them, at most {@code maximumKeys} keys.
     */
    MeterBinder of(
        String name,
        KeyedWindows keyed,
        String prefix,
        WindowConventions conventions,
        int maximumKeys);
  }

  /**
   * Windows for the observations named {@code names}, each key's window as {@code window}, at most
   * {@code maximumKeys} keys per observation, publishing {@code percentiles} (fractions).
   *
   * @throws IllegalArgumentException if a name cannot become a meter name, or maximumKeys is not
   *     positive
   */
  public ObservationWindows(
      List<String> names,
      Set<String> ignoredTags,
      WindowConfig window,
      int maximumKeys,
      List<Double> percentiles,
      TimeSource time) {
    this(
        names,
        ignoredTags,
        window,
        maximumKeys,
        RingtailProperties.conventionsOf(percentiles, WindowConventions.defaults().maximumKeys()),
        time);
  }

  /**
   * Windows for the observations named {@code names}, each key's window as {@code window}, at most
   * {@code maximumKeys} keys per observation, published under {@code conventions} (its percentiles;
   * meters for at most {@code maximumKeys} keys, or {@value WindowConventions#MAXIMUM_KEYS_LIMIT}).
   *
   * @throws IllegalArgumentException if a name cannot become a meter name, or maximumKeys is not
   *     positive
   */
  public ObservationWindows(
      List<String> names,
      Set<String> ignoredTags,
      WindowConfig window,
      int maximumKeys,
      WindowConventions conventions,
      TimeSource time) {
    this(
        names,
        ignoredTags,
        inProcess(window, maximumKeys, time),
        maximumKeys,
        conventions,
        time,
        keyed -> {},
        Meters.OWN);
    windows();
  }

  /**
   * Each observation's windows in this process: a keyed window of {@code window}, each key's window
   * striped from one stripe, at most {@code maximumKeys} keys.
   */
  static Function<String, KeyedWindows> inProcess(
      WindowConfig window, int maximumKeys, TimeSource time) {
    WindowConfig striped = Objects.requireNonNull(window, "window").toBuilder().stripes(1).build();
    return name ->
        KeyedWindows.builder()
            .window(striped)
            .compact(false)
            .maximumKeys(maximumKeys)
            .timeSource(time)
            .build();
  }

  /**
   * Windows for the observations named {@code names}, each built by {@code windowOf} from its name
   * once the context's singletons exist (or at an earlier call of {@link #windows()}), and closed
   * by {@code closer} when this handler closes, each observation's meters bound by {@code meters}
   * ({@link Meters#OWN}: as in-process windows). Building late lets a handler's windows depend on
   * beans that themselves depend on the {@code ObservationRegistry} (a Redis client); observations
   * that stop before the windows are built are not recorded.
   */
  ObservationWindows(
      List<String> names,
      Set<String> ignoredTags,
      Function<String, ? extends KeyedWindows> windowOf,
      int maximumKeys,
      WindowConventions conventions,
      TimeSource time,
      Consumer<KeyedWindows> closer,
      Meters meters) {
    Objects.requireNonNull(names, "names");
    this.meters = Objects.requireNonNull(meters, "meters");
    Objects.requireNonNull(windowOf, "windowOf");
    this.ignoredTags = Set.copyOf(Objects.requireNonNull(ignoredTags, "ignoredTags"));
    Set<String> left = new HashSet<>(this.ignoredTags);
    left.add(WindowConventions.WINDOW_TAG); // the windows' own tag names
    left.add(WindowConventions.PERCENTILE_TAG);
    this.excluded = Set.copyOf(left);
    this.time = Objects.requireNonNull(time, "time");
    this.closer = Objects.requireNonNull(closer, "closer");
    if (maximumKeys < 1) {
      throw Checks.invalid("ringtail.observations.maximum-keys", "positive", maximumKeys);
    }
    this.maximumKeys = maximumKeys;
    this.conventions = Objects.requireNonNull(conventions, "conventions");
    names.forEach(ObservationWindows::prefixOf);
    this.names = Collections.unmodifiableSet(new LinkedHashSet<>(names));
    // interned: a name that is a constant in the instrumentation's code (as Spring's are) is then
    // matched by identity
    this.nameArray = this.names.stream().map(String::intern).toArray(String[]::new);
    this.windowOf = windowOf;
  }

  /**
   * What may share the windows' timing ({@link SharedTiming}), read when the windows are built (so
   * set it before: the package constructor builds them once the context's singletons exist); only
   * recordings on this handler's clock that take the observations share it.
   */
  void sharing(Supplier<? extends List<SharedTiming>> sharing) {
    this.sharing = Objects.requireNonNull(sharing, "sharing");
  }

  /** Builds the windows now, when the context has created every singleton. */
  @Override
  public void afterSingletonsInstantiated() {
    windows();
  }

  /** The meter prefix of an observation's windows: {@code ringtail.} and its name. */
  static String prefixOf(String name) {
    String prefix = "ringtail." + Objects.requireNonNull(name, "name").replace('-', '_');
    if (!PREFIX.matcher(prefix).matches()) {
      throw Checks.invalid(
          "ringtail.observations.names",
          "lowercase dot-separated words (like http.server.requests)",
          name);
    }
    return prefix;
  }

  /**
   * The windows by observation name, keyed as {@link #tagsOf} reads; built on the first call (none
   * if this handler was closed before).
   */
  @Override
  public Map<String, KeyedWindows> windows() {
    Map<String, KeyedWindows> built = windows;
    return built != null ? built : build();
  }

  private synchronized Map<String, KeyedWindows> build() {
    if (windows != null) {
      return windows;
    }
    if (closed.get()) {
      return Map.of();
    }
    Map<String, KeyedWindows> byName = new LinkedHashMap<>();
    try {
      for (String name : names) {
        byName.put(name, Objects.requireNonNull(windowOf.apply(name), "window of " + name));
      }
    } catch (RuntimeException e) {
      byName.values().forEach(closer);
      throw e;
    }
    List<SharedTiming> shared = new ArrayList<>();
    for (SharedTiming s : sharing.get()) {
      if (s.timeSource() == time && s.share(names, ignoredTags)) {
        shared.add(s);
      }
    }
    Route[] inOrder = new Route[nameArray.length];
    for (int i = 0; i < inOrder.length; i++) {
      String name = nameArray[i];
      KeyedWindows keyed = byName.get(name);
      inOrder[i] =
          new Route(
              keyed,
              new ObservationKeys<>(
                  excluded, key -> new Target(keyed.recorder(key), recordings(name, key, shared))));
    }
    routes = inOrder;
    windows = Collections.unmodifiableMap(byName);
    return windows;
  }

  /** What records {@code key}'s requests beside its window. */
  private static SharedTiming.KeyRecording[] recordings(
      String observation, String key, List<SharedTiming> shared) {
    if (shared.isEmpty()) {
      return NONE;
    }
    Map<String, String> keyValues = new LinkedHashMap<>();
    tagsOf(key).forEach(t -> keyValues.put(t.getKey(), t.getValue()));
    List<SharedTiming.KeyRecording> out = new ArrayList<>(shared.size());
    for (SharedTiming s : shared) {
      SharedTiming.KeyRecording r = s.recordingOf(observation, keyValues);
      if (r != null) {
        out.add(r);
      }
    }
    return out.toArray(SharedTiming.KeyRecording[]::new);
  }

  private static final SharedTiming.KeyRecording[] NONE = new SharedTiming.KeyRecording[0];

  /** The key values a key of these windows stands for. */
  public static Tags tagsOf(String key) {
    List<Tag> tags = new ArrayList<>();
    ObservedWindows.keyValues(key).forEach((name, value) -> tags.add(Tag.of(name, value)));
    return Tags.of(tags);
  }

  /**
   * Every context: an observation named by its convention (as Spring MVC's are) has no name yet
   * when its handlers are chosen, so the name is checked when it starts.
   */
  @Override
  public boolean supportsContext(Observation.Context context) {
    return true;
  }

  @Override
  public void onStart(Observation.Context context) {
    String name = context.getName();
    int observed = name == null ? -1 : indexOf(name);
    if (observed >= 0) {
      context.put(starts, starts.take(time.nanoTime(), context, observed));
    }
  }

  /** The index of an observed name in {@link #nameArray}, or -1. */
  private int indexOf(String name) {
    for (int i = 0; i < nameArray.length; i++) {
      if (nameArray[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void onStop(Observation.Context context) {
    StartTimes.Start start = context.get(starts);
    if (start == null || start.owner != context) {
      return; // not observed, or stopped before
    }
    Route[] built = routes; // never built here: building may wait on I/O
    if (built != null && !closed.get()) {
      Route route = built[start.observed]; // the name the observation started with
      long now = time.nanoTime();
      long elapsed = now - start.nanos;
      Target target = route.keys.valueOf(context, start.scratch);
      if (route.windows.timeSource() == time) {
        target.recorder.recordAt(elapsed, now);
      } else {
        target.recorder.record(elapsed); // at the time of the window's own base
      }
      for (SharedTiming.KeyRecording shared : target.shared) {
        shared.record(context, elapsed, now);
      }
    }
    starts.give(start, context);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    windows()
        .forEach(
            (name, keyed) ->
                meters
                    .of(name, keyed, prefixOf(name), conventions, publishedKeys())
                    .bindTo(registry));
  }

  /**
   * The most keys per observation that are published (meters, histograms): as many as are held, up
   * to the conventions' limit.
   */
  int publishedKeys() {
    return Math.min(maximumKeys, WindowConventions.MAXIMUM_KEYS_LIMIT);
  }

  /** Closes the windows (a fleet window publishes what it holds first); idempotent. */
  @Override
  public synchronized void close() {
    if (closed.compareAndSet(false, true) && windows != null) {
      windows.values().forEach(closer);
    }
  }

  @Override
  public String toString() {
    return "ObservationWindows" + names + "[maximumKeys=" + maximumKeys + "]";
  }

  /** An observation's windows and the resolver of what records its keys. */
  private record Route(KeyedWindows windows, ObservationKeys<Target> keys) {}

  /** What records one key's requests: its window's recorder, and what shares the timing. */
  private record Target(KeyedWindows.KeyRecorder recorder, SharedTiming.KeyRecording[] shared) {}
}
