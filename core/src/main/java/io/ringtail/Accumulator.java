package io.ringtail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Counts, sum, min, max and rejected of some samples. In a stripe, several writers may add at once
 * (atomically); the live bucket's instance is touched only under the window lock.
 *
 * <p>The counts are a dense array in the layout ({@link #counts}), or, for a {@linkplain #compact
 * compact} accumulator, a {@link SlotTable} while that is the cheaper: exactly one of the two is
 * set. Only a compact accumulator's owner changes which (in {@link #refit}), while no writer can
 * come; every method that walks {@link #counts} is for dense accumulators.
 */
final class Accumulator {
  static final long BYTES = 64;

  /** {@link #add} outcomes. */
  static final int ADDED = 0;

  static final int CONTENDED = 1;
  static final int OVER_LIMIT = 2;

  /** Quiet drains in a row before a compact accumulator shrinks its counts. */
  static final int QUIET_DRAINS = 16;

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle SUM;
  private static final VarHandle MIN;
  private static final VarHandle MAX;
  private static final VarHandle REJECTED;
  private static final VarHandle LIMIT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      SUM = lookup.findVarHandle(Accumulator.class, "sum", long.class);
      MIN = lookup.findVarHandle(Accumulator.class, "min", long.class);
      MAX = lookup.findVarHandle(Accumulator.class, "max", long.class);
      REJECTED = lookup.findVarHandle(Accumulator.class, "rejected", long.class);
      LIMIT = lookup.findVarHandle(Accumulator.class, "limit", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Dense counts, indexed by slot; null while {@link #table} holds them. */
  long[] counts;

  /** Counts of a compact accumulator that sees few distinct slots; else null. */
  SlotTable table;

  /** Drains in a row that found a compact accumulator needing a quarter of its counts' size. */
  private int quietDrains;

  /** Samples held; kept by the live bucket's instance only (stripes leave it at zero). */
  long count;

  long sum;
  long min = Long.MAX_VALUE;
  long max = Long.MIN_VALUE;
  long rejected;

  /**
   * The most {@link #sum} may reach: this accumulator's share of the window sum's headroom. Set
   * before the accumulator becomes active and only raised while it is.
   */
  long limit;

  Accumulator(int length) {
    this.counts = new long[length];
  }

  private Accumulator(SlotTable table) {
    this.table = table;
  }

  /** A compact accumulator: counts in the smallest {@link SlotTable} until {@link #refit}. */
  static Accumulator compact(BucketLayout layout) {
    return new Accumulator(new SlotTable(SlotTable.MIN_CAPACITY, layout.length()));
  }

  /**
   * Adds a sample unless the sum would pass the limit ({@link #OVER_LIMIT}, nothing added); reports
   * {@link #CONTENDED} when another writer changed the sum under it.
   */
  int add(int index, long value) {
    int outcome = ADDED;
    long s = (long) SUM.getOpaque(this);
    while (true) {
      if (value > (long) LIMIT.getOpaque(this) - s) {
        return OVER_LIMIT;
      }
      long witness = (long) SUM.compareAndExchange(this, s, s + value);
      if (witness == s) {
        break;
      }
      s = witness;
      outcome = CONTENDED;
    }
    long seen = (long) MIN.getOpaque(this);
    while (value < seen && !MIN.weakCompareAndSet(this, seen, value)) {
      seen = (long) MIN.getOpaque(this);
    }
    seen = (long) MAX.getOpaque(this);
    while (value > seen && !MAX.weakCompareAndSet(this, seen, value)) {
      seen = (long) MAX.getOpaque(this);
    }
    long[] dense = counts;
    if (dense != null) {
      LONGS.getAndAdd(dense, index, 1L);
    } else {
      table.increment(index);
    }
    return outcome;
  }

  /** Adds a sample; only for the live bucket, under the window lock. */
  void addLocked(int index, long value) {
    counts[index]++;
    count++;
    sum += value;
    min = Math.min(min, value);
    max = Math.max(max, value);
  }

  void raiseLimit(long newLimit) {
    LIMIT.setOpaque(this, newLimit);
  }

  void reject() {
    REJECTED.getAndAdd(this, 1L);
  }

  /**
   * Adds everything {@code from} holds and zeroes it; the caller has {@code from} alone. Only the
   * slots between its min and max can be non-zero, so only those are visited.
   */
  void takeAll(Accumulator from, BucketLayout layout) {
    if (from.max != Long.MIN_VALUE) {
      long[] source = from.counts;
      for (int i = layout.indexOf(from.min), last = layout.indexOf(from.max); i <= last; i++) {
        if (source[i] != 0) {
          counts[i] += source[i];
          count += source[i];
          source[i] = 0;
        }
      }
    }
    sum += from.sum;
    rejected += from.rejected;
    min = Math.min(min, from.min);
    max = Math.max(max, from.max);
    from.sum = 0;
    from.rejected = 0;
    from.min = Long.MAX_VALUE;
    from.max = Long.MIN_VALUE;
  }

  boolean isEmpty() {
    return max == Long.MIN_VALUE && rejected == 0;
  }

  /** Samples held; visits only the slots between min and max. */
  long countBetween(BucketLayout layout) {
    long n = 0;
    if (max != Long.MIN_VALUE) {
      for (int i = layout.indexOf(min), last = layout.indexOf(max); i <= last; i++) {
        n += counts[i];
      }
    }
    return n;
  }

  void clear(BucketLayout layout) {
    if (max != Long.MIN_VALUE) { // else no sample came in: the counts are untouched
      if (table != null) {
        table.clear();
      } else {
        Arrays.fill(counts, layout.indexOf(min), layout.indexOf(max) + 1, 0L);
      }
    }
    count = 0;
    sum = 0;
    rejected = 0;
    min = Long.MAX_VALUE;
    max = Long.MIN_VALUE;
  }

  /**
   * Clears a compact accumulator that held {@code distinct} slots and sizes its counts for what
   * comes next: a table grows at once to keep at most half its cells used (and when writers had to
   * chain overflow tables); it shrinks, to at most half used, after {@link #QUIET_DRAINS} drains in
   * a row that used at most an eighth. Whenever a table would take more bytes than the dense array,
   * the counts become the dense array, and back to a table once that needs a quarter of the dense
   * bytes for as many drains. Only by the owner, while no writer can come.
   */
  void refit(int distinct, BucketLayout layout) {
    long denseBytes = 16 + 8L * layout.length();
    SlotTable t = table;
    int capacity = t == null ? 0 : t.capacity();
    int next = capacity;
    if (t != null && (2 * distinct > capacity || t.overflow() != null)) {
      next = Math.max(SlotTable.capacityFor(2 * distinct), 2 * capacity);
      quietDrains = 0;
    } else if (t == null
        ? 4 * SlotTable.bytesOf(SlotTable.capacityFor(2 * distinct)) <= denseBytes
        : 8 * distinct <= capacity && capacity > SlotTable.MIN_CAPACITY) {
      if (++quietDrains >= QUIET_DRAINS) {
        next = SlotTable.capacityFor(2 * distinct);
        quietDrains = 0;
      }
    } else {
      quietDrains = 0;
    }
    clear(layout);
    if (next == capacity) {
      return;
    }
    if (SlotTable.bytesOf(next) > denseBytes) {
      if (counts == null) {
        counts = new long[layout.length()];
      }
      table = null;
    } else {
      table = new SlotTable(next, layout.length());
      counts = null;
    }
  }

  /** Heap bytes of this accumulator and its counts. */
  long bytes() {
    SlotTable t = table;
    long[] dense = counts;
    return BYTES + (dense != null ? 16 + 8L * dense.length : 0) + (t != null ? t.bytes() : 0);
  }
}
