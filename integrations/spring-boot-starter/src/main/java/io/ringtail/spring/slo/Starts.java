package io.ringtail.spring.slo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The start times of observations in flight, in holders recycled through a small striped pool, so
 * that timing a request allocates nothing once the pool is warm: a thread takes from and gives to
 * the slot its id hashes to, each slot on a cache line of its own; a holder no slot can take is
 * left to the garbage collector, and one no slot can give is allocated. Thread-safe, lock-free.
 */
final class Starts {
  private static final VarHandle HELD;

  static {
    try {
      HELD = MethodHandles.lookup().findVarHandle(Slot.class, "held", Start.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** When an observation started, which one owns the holder, and its observation's index. */
  static final class Start {
    long nanos;
    Object owner;
    int observed;
  }

  /** One pooled holder at most, padded so that two slots do not share a cache line. */
  @SuppressWarnings("unused") // the padding is never read
  static final class Slot {
    long p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14;
    Start held;
  }

  private final Slot[] slots;
  private final int mask;

  /** A pool of {@code size} holders at most (rounded up to a power of two). */
  Starts(int size) {
    int n = Integer.highestOneBit(Math.max(1, size - 1)) << 1;
    this.slots = new Slot[n];
    for (int i = 0; i < n; i++) {
      slots[i] = new Slot();
    }
    this.mask = n - 1;
  }

  /** A holder of {@code nanos}, from the pool or new, owned by {@code owner} until given back. */
  Start take(long nanos, Object owner, int observed) {
    Start s = (Start) HELD.getAndSet(slots[index()], (Start) null);
    if (s == null) {
      s = new Start();
    }
    s.nanos = nanos;
    s.owner = owner;
    s.observed = observed;
    return s;
  }

  /** Gives {@code start} back if {@code owner} still owns it; a second stop gives nothing. */
  void give(Start start, Object owner) {
    if (start.owner == owner) {
      start.owner = null;
      HELD.compareAndSet(slots[index()], (Start) null, start);
    }
  }

  private int index() {
    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+
    long id = Thread.currentThread().getId();
    return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
  }
}
