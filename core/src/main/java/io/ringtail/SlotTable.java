package io.ringtail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Counts per slot of a {@link BucketLayout} for an accumulator that sees few distinct slots: an
 * open-addressing table of (slot, count) cells with linear probing, twelve bytes a cell, where a
 * dense array costs eight bytes for every slot of the layout.
 *
 * <p>Any number of threads may {@link #increment} at once, lock-free: a new slot claims an empty
 * cell by a compare-and-set of its key, an old one adds to its cell's count atomically. Cells are
 * never freed while writers may come, so a slot has at most one cell per table. A slot that finds
 * neither its cell nor an empty one within {@link #MAX_PROBES} probes goes on to the overflow
 * table, twice the size, which the first writer to need it allocates and publishes by a
 * compare-and-set: the only allocation on the record path, and only when the table filled up faster
 * than its owner {@linkplain Accumulator#refit grew it}. The last table of a chain has at least as
 * many cells as the layout has slots and probes every cell, so it always takes the slot and the
 * chain ends. A slot may so hold cells in several tables of a chain; reading out sums them.
 *
 * <p>Everything but {@link #increment} is for the owner alone, once no writer can come (after a
 * {@code WriterReaderPhaser} flip).
 */
final class SlotTable {
  /** Cells of the smallest table. */
  static final int MIN_CAPACITY = 16;

  /** Probes before a slot gives up on a table that is not the chain's last. */
  static final int MAX_PROBES = 16;

  /** Heap bytes of a table besides its two arrays (object header and fields). */
  static final long BYTES = 32;

  /**
   * Unused counts after the last cell: a cache line, so that the hot end of one table's counts and
   * whatever the drainer allocated next (another stripe's table, whose fields every record reads)
   * never share a line.
   */
  private static final int PAD = 8;

  private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(int[].class);
  private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle OVERFLOW;

  static {
    try {
      OVERFLOW = MethodHandles.lookup().findVarHandle(SlotTable.class, "overflow", SlotTable.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Slot plus one of each cell, 0 for an empty cell. */
  final int[] keys;

  final long[] counts;

  private final int shift;
  private final int maxProbes;
  private final int layoutLength;

  /** Where {@link #sortInPlace} left the sorted cells: {@code [sortedFrom, capacity)}. */
  int sortedFrom;

  /** Set once, by the first writer that found this table full for its slot. */
  private volatile SlotTable overflow;

  /** An empty table of {@code capacity} cells (a power of two) for a layout of that many slots. */
  SlotTable(int capacity, int layoutLength) {
    this.keys = new int[capacity];
    this.counts = new long[capacity + PAD];
    this.shift = 32 - Integer.numberOfTrailingZeros(capacity);
    this.maxProbes = capacity >= layoutLength ? capacity : Math.min(MAX_PROBES, capacity);
    this.layoutLength = layoutLength;
  }

  /** The smallest capacity (a power of two, at least {@link #MIN_CAPACITY}) of {@code cells}. */
  static int capacityFor(int cells) {
    int c = Integer.highestOneBit(Math.max(MIN_CAPACITY, cells));
    return c < cells ? c << 1 : c;
  }

  /** Heap bytes of a table of {@code capacity} cells, overflow aside. */
  static long bytesOf(int capacity) {
    return BYTES + 16 + 4L * capacity + 16 + 8L * (capacity + PAD);
  }

  int capacity() {
    return keys.length;
  }

  /** Adds one to {@code slot}'s count; lock-free. */
  void increment(int slot) {
    int key = slot + 1;
    for (SlotTable t = this; ; t = t.overflowOrCreate()) {
      int[] k = t.keys;
      int mask = k.length - 1;
      int i = (key * 0x9E3779B9) >>> t.shift;
      for (int probe = 0; probe < t.maxProbes; probe++, i = (i + 1) & mask) {
        int seen = (int) KEYS.getOpaque(k, i);
        if (seen == 0) {
          seen = (int) KEYS.compareAndExchange(k, i, 0, key);
          if (seen == 0) {
            seen = key;
          }
        }
        if (seen == key) {
          COUNTS.getAndAdd(t.counts, i, 1L);
          return;
        }
      }
    }
  }

  private SlotTable overflowOrCreate() {
    SlotTable next = overflow;
    if (next == null) {
      int capacity = keys.length >= layoutLength ? keys.length : keys.length << 1;
      SlotTable fresh = new SlotTable(capacity, layoutLength);
      next = (SlotTable) OVERFLOW.compareAndExchange(this, null, fresh);
      if (next == null) {
        next = fresh;
      }
    }
    return next;
  }

  /** The next table of the chain, or null. */
  SlotTable overflow() {
    return overflow;
  }

  /** Tables in the chain after this one: allocations the record path made. */
  int overflowCount() {
    int n = 0;
    for (SlotTable t = overflow; t != null; t = t.overflow) {
      n++;
    }
    return n;
  }

  /** Heap bytes of this table and its overflow chain. */
  long bytes() {
    long bytes = 0;
    for (SlotTable t = this; t != null; t = t.overflow) {
      bytes += bytesOf(t.keys.length);
    }
    return bytes;
  }

  /**
   * The chain's cells, one per slot, sorted by slot into {@code [sortedFrom, capacity)} of the
   * returned table's arrays (keys still slot plus one): this table itself when it has no overflow
   * (sorted in place, no allocation), else a new table holding the whole chain's cells, duplicates
   * summed. Either way the hash order is gone: the owner clears or replaces this table before
   * writers come back.
   */
  SlotTable sorted() {
    SlotTable next = overflow;
    if (next == null) {
      sortInPlace();
      return this;
    }
    int cells = 0;
    for (SlotTable t = this; t != null; t = t.overflow) {
      cells += t.occupied();
    }
    SlotTable all = new SlotTable(capacityFor(cells), layoutLength);
    int w = 0;
    for (SlotTable t = this; t != null; t = t.overflow) {
      for (int i = 0; i < t.keys.length; i++) {
        if (t.keys[i] != 0) {
          all.keys[w] = t.keys[i];
          all.counts[w++] = t.counts[i];
        }
      }
    }
    all.sortInPlace();
    all.mergeSortedDuplicates();
    return all;
  }

  private int occupied() {
    int n = 0;
    for (int key : keys) {
      if (key != 0) {
        n++;
      }
    }
    return n;
  }

  /** Heap-sorts the cells by key: empty cells (key 0) come first, the others ascend after them. */
  private void sortInPlace() {
    int n = keys.length;
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(i, n);
    }
    for (int end = n - 1; end > 0; end--) {
      swap(0, end);
      siftDown(0, end);
    }
    int from = 0;
    while (from < n && keys[from] == 0) {
      from++;
    }
    sortedFrom = from;
  }

  private void siftDown(int i, int n) {
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        return;
      }
      if (child + 1 < n && keys[child + 1] > keys[child]) {
        child++;
      }
      if (keys[i] >= keys[child]) {
        return;
      }
      swap(i, child);
      i = child;
    }
  }

  private void swap(int a, int b) {
    int k = keys[a];
    keys[a] = keys[b];
    keys[b] = k;
    long c = counts[a];
    counts[a] = counts[b];
    counts[b] = c;
  }

  /** After a sort: sums the cells of equal keys into the last of them, moving the run up. */
  private void mergeSortedDuplicates() {
    int n = keys.length;
    int w = n;
    for (int r = n - 1; r >= sortedFrom; r--) {
      if (w < n && keys[w] == keys[r]) {
        counts[w] += counts[r];
      } else {
        w--;
        keys[w] = keys[r];
        counts[w] = counts[r];
      }
    }
    Arrays.fill(keys, sortedFrom, w, 0);
    Arrays.fill(counts, sortedFrom, w, 0L);
    sortedFrom = w;
  }

  /** Empties the table and drops its overflow chain. */
  void clear() {
    Arrays.fill(keys, 0);
    Arrays.fill(counts, 0L);
    sortedFrom = 0;
    overflow = null;
  }
}
