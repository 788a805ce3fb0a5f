package io.ringtail.spring;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The window key of an observation's low-cardinality key values, resolved without allocating once
 * those values were seen. Thread-safe.
 *
 * <p>The key joins the key values sorted by name, those named in {@code excluded} left out ({@link
 * #joined}). {@code Context.getLowCardinalityKeyValues()} copies and sorts them on every call, so
 * the request path does not call it: it remembers the sets of names it met (a shape: at most
 * {@value #MAX_SHAPES}), reads each name's value by {@code getLowCardinalityKeyValue} (a map
 * lookup) and finds the joined key in the shape's table of value tuples (open addressing, compared
 * by {@code equals}), checking that the context holds no name beyond the shape by its count of key
 * values. A miss, a context of another shape or more than {@value #MAX_ENTRIES} tuples per shape
 * take the full path: copy, sort, join; the first two then remember the tuple (under this object's
 * lock; the tables are replaced whole, so readers never lock).
 *
 * <p>The count is the size of the context's own map of low-cardinality key values, read by a
 * private-field accessor: Micrometer has no public count. Where that accessor cannot be had (a
 * Micrometer whose {@code Context} keeps them otherwise), every call takes the full path.
 */
final class ObservationKeys {
  static final int MAX_SHAPES = 4;
  static final int MAX_ENTRIES = 4_096;
  static final char SEPARATOR = '\u001f';
  static final String NO_TAGS = "-";

  /** {@code Context.lowCardinalityKeyValues}, or null when not there. */
  private static final MethodHandle LOW_CARDINALITY = lowCardinalityMap();

  private final Set<String> excluded;
  private volatile Shape[] shapes = new Shape[0];

  /** Resolves keys leaving out the key values named in {@code excluded}. */
  ObservationKeys(Set<String> excluded) {
    this.excluded = Set.copyOf(excluded);
  }

  /** Whether the request path can resolve without allocating (the count accessor was found). */
  static boolean countsKeyValues() {
    return LOW_CARDINALITY != null;
  }

  /** The key of the context's low-cardinality key values. */
  String keyOf(Observation.Context context) {
    int size = size(context);
    if (size >= 0) {
      for (Shape shape : shapes) {
        if (shape.names.length == size) {
          String key = shape.find(context);
          if (key != null) {
            return key;
          }
        }
      }
    }
    return learn(context);
  }

  /** The full path: copies and joins the key values, and remembers them for the next call. */
  private String learn(Observation.Context context) {
    List<KeyValue> all = new ArrayList<>();
    for (KeyValue kv : context.getLowCardinalityKeyValues()) {
      all.add(kv);
    }
    String key = joined(all, excluded);
    if (LOW_CARDINALITY != null) {
      remember(all, key);
    }
    return key;
  }

  private synchronized void remember(List<KeyValue> all, String key) {
    String[] names = new String[all.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = all.get(i).getKey();
    }
    Shape shape = null;
    for (Shape s : shapes) {
      if (Arrays.equals(s.names, names)) {
        shape = s;
      }
    }
    if (shape == null) {
      if (shapes.length == MAX_SHAPES) {
        return;
      }
      shape = new Shape(names);
      Shape[] grown = Arrays.copyOf(shapes, shapes.length + 1);
      grown[shapes.length] = shape;
      shapes = grown;
    }
    shape.add(all, key);
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
  private static final class Shape {
    final String[] names;

    private volatile Entry[] table = new Entry[16];
    private int size;

    Shape(String[] names) {
      this.names = names;
    }

    /** The key of the context's values, or null if this shape does not hold them. */
    String find(Observation.Context context) {
      int hash = 1;
      for (int i = 0; i < names.length; i++) {
        KeyValue kv = context.getLowCardinalityKeyValue(names[i]);
        if (kv == null) {
          return null;
        }
        hash = 31 * hash + kv.getValue().hashCode();
      }
      Entry[] t = table;
      int mask = t.length - 1;
      for (int i = spread(hash) & mask; ; i = (i + 1) & mask) {
        Entry e = t[i];
        if (e == null) {
          return null;
        }
        if (e.hash == hash && matches(e.values, context)) {
          return e.key;
        }
      }
    }

    private boolean matches(String[] values, Observation.Context context) {
      for (int i = 0; i < names.length; i++) {
        KeyValue kv = context.getLowCardinalityKeyValue(names[i]);
        if (kv == null || !values[i].equals(kv.getValue())) {
          return false;
        }
      }
      return true;
    }

    /** Adds the tuple of {@code all} (this shape's names, in order); called under the lock. */
    void add(List<KeyValue> all, String key) {
      if (size >= MAX_ENTRIES) {
        return;
      }
      String[] values = new String[names.length];
      int hash = 1;
      for (int i = 0; i < values.length; i++) {
        values[i] = all.get(i).getValue();
        hash = 31 * hash + values[i].hashCode();
      }
      Entry[] old = table;
      for (Entry e : old) {
        if (e != null && e.hash == hash && Arrays.equals(e.values, values)) {
          return;
        }
      }
      int capacity = old.length;
      while ((size + 1) * 2 > capacity) {
        capacity *= 2;
      }
      Entry[] t = new Entry[capacity];
      for (Entry e : old) {
        if (e != null) {
          put(t, e);
        }
      }
      put(t, new Entry(hash, values, key));
      size++;
      table = t;
    }

    private static void put(Entry[] t, Entry e) {
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

  private record Entry(int hash, String[] values, String key) {}
}
