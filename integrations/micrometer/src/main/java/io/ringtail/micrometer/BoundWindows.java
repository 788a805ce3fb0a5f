package io.ringtail.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Which windows (a window, a keyed collection or a map of windows) each registry has been given by
 * {@link WindowMetrics} or {@link KeyedWindowMetrics}, held weakly on both sides so neither a
 * registry nor a window is kept alive by it. Thread-safe.
 */
final class BoundWindows {
  private static final Map<MeterRegistry, Set<Object>> BOUND = new WeakHashMap<>();

  private BoundWindows() {}

  static synchronized void add(MeterRegistry registry, Object windows) {
    BOUND
        .computeIfAbsent(registry, r -> Collections.newSetFromMap(new WeakHashMap<>()))
        .add(windows);
  }

  static synchronized boolean contains(MeterRegistry registry, Object windows) {
    Set<Object> bound = BOUND.get(registry);
    return bound != null && bound.contains(windows);
  }
}
