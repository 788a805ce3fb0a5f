package io.ringtail;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Counts, sum, min, max and rejected of some samples. In a stripe, several writers may add at once
 * (atomically); the live bucket's instance is touched only under the window lock.
 */
final class Accumulator {
  static final long BYTES = 64;

  /** {@link #add} outcomes. */
  static final int ADDED = 0;

  static final int CONTENDED = 1;
  static final int OVER_LIMIT = 2;
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

  final long[] counts;

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
    LONGS.getAndAdd(counts, index, 1L);
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
    if (max != Long.MIN_VALUE) {
      Arrays.fill(counts, layout.indexOf(min), layout.indexOf(max) + 1, 0L);
    }
    count = 0;
    sum = 0;
    rejected = 0;
    min = Long.MAX_VALUE;
    max = Long.MIN_VALUE;
  }
}
