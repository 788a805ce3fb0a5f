package io.ringtail.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * The striped record path of a service level (the in-process one, and the Redis backend's fleet
 * one): per stripe, two arrays of counts (the total, then one bad count per objective), one active
 * for writers while the owner drains the other, flipped under the stripe's {@code
 * WriterReaderPhaser} as HdrHistogram's {@code Recorder} and core's windows do.
 *
 * <h2>Concurrency protocol</h2>
 *
 * <ol>
 *   <li>A record enters the phaser of the stripe its thread's {@link Probe} picks, adds one to the
 *       active total (a compare-and-set) and to each bad count the event's mask names (atomic
 *       adds), and exits: no lock, no wait, no allocation. A writer whose compare-and-set fails met
 *       another writer: it moves to another stripe for its next record.
 *   <li>A drain (under the owner's lock) swaps each stripe's arrays and flips its phaser, which
 *       returns once every record that could have seen the old array has exited; the old array is
 *       then read and zeroed by the lock holder alone. An event's total and bad counts therefore
 *       move together: none is lost, counted twice or split between drains.
 *   <li>After enough collisions (a count halved at every {@link #growIfContended} that does not
 *       grow), the stripes double, up to the processors rounded up to a power of two (at most 4). A
 *       stripe once added stays, so every drain sees every stripe a writer could have entered.
 * </ol>
 *
 * <p>Each array keeps {@value #PAD} unused longs either side of its counts, so no two stripes'
 * counts share a cache line.
 *
 * <p>Thread-safe as described: {@link #add} from any thread, every other method under the owner's
 * lock. Internal: shared by Ringtail's modules, not part of the API.
 */
public final class CountStripes {
  /** Unused longs either side of a stripe's counts. */
  public static final int PAD = 8;

  /** Contended records between two rotations that make the stripes double. */
  public static final int GROW_AFTER_CONTENDED = 64;

  /** The most stripes: the processors, rounded up to a power of two, at most 4. */
  public static final int GROWTH_BOUND =
      Math.min(
          4,
          Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 2 - 1)));

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  /** Counts per stripe: the total and one per objective. */
  private final int width;

  private final int maxStripes;

  /** Grown (under the owner's lock) by copying; a stripe once added is never removed. */
  private volatile Stripe[] stripes;

  /** Contended records since the stripes last grew or halved the count; racy, a hint only. */
  private int contended;

  /** One stripe: its phaser and its two arrays of counts. */
  static final class Stripe {
    final WriterReaderPhaser phaser = new WriterReaderPhaser();
    volatile long[] active;
    long[] inactive;

    Stripe(int width) {
      active = new long[width + 2 * PAD];
      inactive = new long[width + 2 * PAD];
    }
  }

  /** Stripes of {@code width} counts each, at most {@code maxStripes} of them. */
  public CountStripes(int width, int maxStripes) {
    this.width = width;
    this.maxStripes = maxStripes;
    this.stripes = new Stripe[] {new Stripe(width)};
  }

  /**
   * Counts one event: the total, and the bad count of each objective whose bit {@code bad} sets.
   */
  public void add(int bad) {
    Stripe[] table = stripes;
    // one stripe: no thread-local lookup
    Stripe s = table.length == 1 ? table[0] : table[Probe.current().hash() & (table.length - 1)];
    boolean met;
    long ticket = s.phaser.writerCriticalSectionEnter();
    try {
      long[] c = s.active;
      long n = (long) LONGS.getOpaque(c, PAD);
      met = !LONGS.compareAndSet(c, PAD, n, n + 1);
      if (met) {
        LONGS.getAndAdd(c, PAD, 1L);
      }
      for (int m = bad; m != 0; m &= m - 1) {
        LONGS.getAndAdd(c, PAD + 1 + Integer.numberOfTrailingZeros(m), 1L);
      }
    } finally {
      s.phaser.writerCriticalSectionExit(ticket);
    }
    if (met) {
      Probe.current().rehash();
      contended++;
    }
  }

  /** Adds what every stripe counted since the last drain into {@code into}, and clears it. */
  public void drainInto(long[] into) {
    for (Stripe s : stripes) {
      s.phaser.readerLock();
      try {
        long[] recorded = s.active;
        s.active = s.inactive;
        s.inactive = recorded;
        s.phaser.flipPhase();
        for (int i = 0; i < width; i++) {
          into[i] += recorded[PAD + i];
          recorded[PAD + i] = 0;
        }
      } finally {
        s.phaser.readerUnlock();
      }
    }
  }

  /** At a rotation: doubles the stripes after sustained collisions, else halves the count. */
  public void growIfContended() {
    int seen = contended;
    if (seen >= GROW_AFTER_CONTENDED && stripes.length < maxStripes) {
      grow();
      contended = 0;
    } else if (seen != 0) {
      contended = seen >> 1;
    }
  }

  /** Doubles the stripes, up to the bound, as sustained collisions would. */
  public void grow() {
    Stripe[] table = stripes;
    if (table.length < maxStripes) {
      Stripe[] grown = Arrays.copyOf(table, table.length * 2);
      for (int i = table.length; i < grown.length; i++) {
        grown[i] = new Stripe(width);
      }
      stripes = grown;
    }
  }

  /** Stripes in use now. */
  public int stripeCount() {
    return stripes.length;
  }

  /** Bytes the stripes hold: the table, and per stripe its object, phaser and two arrays. */
  public long footprintBytes() {
    int n = stripes.length;
    return 16 + 8L * ((n + 1) / 2) + n * (24 + WRITER_READER_PHASER_BYTES + 2 * arrayBytes(width));
  }

  /** HdrHistogram's phaser: a header and three longs. */
  public static final long WRITER_READER_PHASER_BYTES = 40;

  /** A long array of {@code width} counts and its padding. */
  public static long arrayBytes(int width) {
    return 16 + 8L * (width + 2 * PAD);
  }
}
