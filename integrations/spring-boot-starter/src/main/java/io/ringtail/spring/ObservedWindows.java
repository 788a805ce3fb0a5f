package io.ringtail.spring;

import io.ringtail.keyed.KeyedWindows;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rolling windows of the application's observations, as the starter keeps them ({@code
 * ringtail.observations.*}) and its other parts read them (the Actuator endpoint, the anomaly
 * alerts, the Redis meters): each observation's {@link KeyedWindows} by its name, a key standing
 * for the low-cardinality key values of the observation's requests, as {@link #keyValues} reads it.
 * Implementations are thread-safe.
 */
public interface ObservedWindows {
  /**
   * What joins a key's names and values, {@code name, value, name, value...} in name order (U+001F,
   * the unit separator; where a name or value holds it, it is replaced by {@code '_'}).
   */
  char SEPARATOR = '\u001f';

  /** The key of the requests that have no key values. */
  String NO_KEY_VALUES = "-";

  /** The windows by observation name; empty if they were closed before they were built. */
  Map<String, KeyedWindows> windows();

  /** The key values, in order, that a key of these windows stands for. */
  static Map<String, String> keyValues(String key) {
    if (key.equals(NO_KEY_VALUES)) {
      return Map.of();
    }
    String[] parts = key.split(String.valueOf(SEPARATOR), -1);
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < parts.length; i += 2) {
      out.put(parts[i], parts[i + 1]);
    }
    return Collections.unmodifiableMap(out);
  }
}
