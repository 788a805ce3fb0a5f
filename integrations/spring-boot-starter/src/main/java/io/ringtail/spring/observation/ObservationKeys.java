package io.ringtail.spring.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.ringtail.spring.ObservedWindows;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What an observation's low-cardinality key values stand for (the window key, or what records for
 * it), resolved without allocating once those values were seen. Thread-safe.
 *
 * <p>The key joins the key values sorted by name, those named in {@code excluded} left out ({@link
 * #joined}). {@code Context.getLowCardinalityKeyValues()} copies and sorts them on every call, so
 * the request path does not call it: it remembers the sets of names it met (a shape: at most
 * {@value #MAX_SHAPES}), reads each name's value by {@code getLowCardinalityKeyValue} (a map
 * lookup, once: into the caller's scratch array) and finds the tuple's value in the shape's table
 * of value tuples (open addressing, compared by {@code equals}), checking that the context holds no
 * name beyond the shape by its count of key values. A miss, a context of another shape or more than
 * {@value #MAX_ENTRIES} tuples per shape take the full path: copy, sort, join, and the value of the
 * joined key; the first two then remember the tuple and its value (under this object's lock; the
 * tables are replaced whole, so readers never lock).
 *
 * <p>The count is the size of the context's own map of low-cardinality key values, read by a
 * private-field accessor: Micrometer has no public count. Where that accessor cannot be had (a
 * Micrometer whose {@code Context} keeps them otherwise), every call takes the full path.
 */
final class ObservationKeys<V> {
  static final int MAX_SHAPES = 4;
  static final int MAX_ENTRIES = 4_096;
  static final char SEPARATOR = ObservedWindows.SEPARATOR;
  static final String NO_TAGS = ObservedWindows.NO_KEY_VALUES;

  /** {@code Context.lowCardinalityKeyValues}, or null when not there. */
  private static final MethodHandle LOW_CARDINALITY = lowCardinalityMap();

  private final Set<String> excluded;
  private final Function<String, V> valueOfKey;
  private volatile Shape<V>[] shapes = newShapes(0);

  /**
   * Resolves keys leaving out the key values named in {@code excluded}, each key to its value by
   * {@code valueOfKey} (called once per remembered tuple, and on every full path).
   */
  ObservationKeys(Set<String> excluded, Function<String, V> valueOfKey) {
    this.excluded = Set.copyOf(excluded);
    this.valueOfKey = valueOfKey;
  }

  @SuppressWarnings("unchecked")
  private static <V> Shape<V>[] newShapes(int n) {
    return (Shape<V>[]) new Shape<?>[n];
  }

  /** Whether the request path can resolve without allocating (the count accessor was found). */
  static boolean countsKeyValues() {
    return LOW_CARDINALITY != null;
  }

  /**
   * The length of a scratch array that holds the key values of most observations ({@link
   * #valueOf}).
   */
  static final int SCRATCH = 8;

  /**
   * The value of the key of the context's low-cardinality key values, reading them into {@code
   * scratch} (owned by the caller, left holding them; a shape of more names than it holds reads
   * into an array of its own).
   */
  V valueOf(Observation.Context context, String[] scratch) {
    int size = size(context);
    if (size >= 0) {
      for (Shape<V> shape : shapes) {
        if (shape.names.length == size) {
          V value = shape.find(context, scratch);
          if (value != null) {
            return value;
          }
        }
      }
    }
    return learn(context);
  }

  /** The full path: copies and joins the key values, and remembers them for the next call. */
  private V learn(Observation.Context context) {
    List<KeyValue> all = new ArrayList<>();
    for (KeyValue kv : context.getLowCardinalityKeyValues()) {
      all.add(kv);
    }
    String key = joined(all, excluded);
    return LOW_CARDINALITY != null ? remember(all, key) : valueOfKey.apply(key);
  }

  /** The value of {@code key}, remembered for the tuple of {@code all} if there is room. */
  private synchronized V remember(List<KeyValue> all, String key) {
    String[] names = new String[all.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = all.get(i).getKey();
    }
    Shape<V> shape = null;
    for (Shape<V> s : shapes) {
      if (Arrays.equals(s.names, names)) {
        shape = s;
      }
    }
    if (shape == null) {
      if (shapes.length == MAX_SHAPES) {
        return valueOfKey.apply(key);
      }
      shape = new Shape<>(names);
      Shape<V>[] grown = Arrays.copyOf(shapes, shapes.length + 1);
      grown[shapes.length] = shape;
      shapes = grown;
    }
    return shape.add(all, key, valueOfKey);
  }

  /**
   * The key of key values sorted by name: name, separator, value, joined by the separator ({@link
   * #NO_TAGS} if none), the separator in a name or value replaced by '_'.
   */
  static String joined(Iterable<KeyValue> sorted, Set<String> excluded) {
    StringBuilder key = new StringBuilder(64);
    for (KeyValue kv : sorted) {
      String k = kv.getKey();
      if (excluded.contains(k)) {
        continue;
      }
      if (key.length() > 0) {
        key.append(SEPARATOR);
      }
      key.append(k.replace(SEPARATOR, '_'))
          .append(SEPARATOR)
          .append(kv.getValue().replace(SEPARATOR, '_'));
    }
    return key.length() == 0 ? NO_TAGS : key.toString();
  }

  private static int size(Observation.Context context) {
    if (LOW_CARDINALITY == null) {
      return -1;
    }
    try {
      return ((Map<?, ?>) LOW_CARDINALITY.invokeExact(context)).size();
    } catch (Throwable e) {
      return -1;
    }
  }

  private static MethodHandle lowCardinalityMap() {
    try {
      MethodHandle getter =
          MethodHandles.privateLookupIn(Observation.Context.class, MethodHandles.lookup())
              .findGetter(Observation.Context.class, "lowCardinalityKeyValues", Map.class);
      return getter.asType(getter.type().changeParameterType(0, Observation.Context.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * One set of key-value names (sorted) and the keys of the value tuples seen with it. The table is
   * replaced whole on every addition.
   */
  private static final class Shape<V> {
    final String[] names;

    private volatile Entry<V>[] table = newTable(16);
    private int size;

    Shape(String[] names) {
      this.names = names;
    }

    @SuppressWarnings("unchecked")
    private static <V> Entry<V>[] newTable(int n) {
      return (Entry<V>[]) new Entry<?>[n];
    }

    /**
     * The value of the context's values (read once, into {@code scratch} if it holds them), or null
     * if this shape does not hold them.
     */
    V find(Observation.Context context, String[] scratch) {
      int n = names.length;
      String[] read = n <= scratch.length ? scratch : new String[n];
      int hash = 1;
      for (int i = 0; i < n; i++) {
        KeyValue kv = context.getLowCardinalityKeyValue(names[i]);
        if (kv == null) {
          return null;
        }
        String value = kv.getValue();
        read[i] = value;
        hash = 31 * hash + value.hashCode();
      }
      Entry<V>[] t = table;
      int mask = t.length - 1;
      for (int i = spread(hash) & mask; ; i = (i + 1) & mask) {
        Entry<V> e = t[i];
        if (e == null) {
          return null;
        }
        if (e.hash == hash && matches(e.values, read)) {
          return e.value;
        }
      }
    }

    private boolean matches(String[] values, String[] read) {
      for (int i = 0; i < values.length; i++) {
        if (!values[i].equals(read[i])) {
          return false;
        }
      }
      return true;
    }

    /**
     * The value of the tuple of {@code all} (this shape's names, in order) with key {@code key}:
     * the one remembered, else a new one, remembered if there is room; called under the lock.
     */
    V add(List<KeyValue> all, String key, Function<String, V> valueOfKey) {
      String[] values = new String[names.length];
      int hash = 1;
      for (int i = 0; i < values.length; i++) {
        values[i] = all.get(i).getValue();
        hash = 31 * hash + values[i].hashCode();
      }
      Entry<V>[] old = table;
      for (Entry<V> e : old) {
        if (e != null && e.hash == hash && Arrays.equals(e.values, values)) {
          return e.value;
        }
      }
      V value = valueOfKey.apply(key);
      if (size >= MAX_ENTRIES) {
        return value;
      }
      int capacity = old.length;
      while ((size + 1) * 2 > capacity) {
        capacity *= 2;
      }
      Entry<V>[] t = newTable(capacity);
      for (Entry<V> e : old) {
        if (e != null) {
          put(t, e);
        }
      }
      put(t, new Entry<>(hash, values, value));
      size++;
      table = t;
      return value;
    }

    private static <V> void put(Entry<V>[] t, Entry<V> e) {
      int mask = t.length - 1;
      int i = spread(e.hash) & mask;
      while (t[i] != null) {
        i = (i + 1) & mask;
      }
      t[i] = e;
    }

    private static int spread(int h) {
      return h ^ (h >>> 16);
    }
  }

  private record Entry<V>(int hash, String[] values, V value) {}
}
