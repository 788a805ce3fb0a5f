package io.ringtail.spring.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The start times of observations in flight, in holders recycled through a small striped pool, so
 * that timing a request allocates nothing once the pool is warm. A holder goes back to the pool
 * when its observation stops, on whichever thread; a holder no slot can take is left to the garbage
 * collector, and one no slot can give is allocated. Each slot sits on a cache line of its own, and
 * a thread uses the slot its id hashes to, so request threads rarely meet. A pool is also the key
 * its handler puts its holders under in an observation's context ({@code context.put(pool,
 * holder)}), so that two handlers' holders never meet. Thread-safe, lock-free.
 *
 * <p>Internal: shared by the starter's observation handlers; not part of the API.
 */
public final class StartTimes {
  /** A slot's holder, by a field handle: no per-call array type checks. */
  private static final VarHandle HELD;

  static {
    try {
      HELD = MethodHandles.lookup().findVarHandle(Slot.class, "held", Start.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * When an observation started, on the handler's time source, which one owns it, and which of the
   * handler's observed names it started with (the stopping thread need not look it up again).
   */
  public static final class Start {
    /** The reading of the handler's time source at the start. */
    public long nanos;

    /** The observation's context that owns the holder; null while pooled. */
    public Object owner;

    /** Which of the handler's observed names it started with. */
    public int observed;

    /** Scratch space for the stopping thread while it owns the holder. */
    public final String[] scratch;

    Start(int scratch) {
      this.scratch = new String[scratch];
    }
  }

  /** One pooled holder at most, padded so that two slots do not share a cache line. */
  @SuppressWarnings("unused") // the padding is never read
  static final class Slot {
    long p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14;
    Start held;
  }

  private final Slot[] slots;
  private final int mask;
  private final int scratch;

  /**
   * A pool of {@code size} holders at most (rounded up to a power of two), without scratch space.
   */
  public StartTimes(int size) {
    this(size, 0);
  }

  /**
   * A pool of {@code size} holders at most (rounded up to a power of two), each with {@code
   * scratch} strings of scratch space.
   */
  public StartTimes(int size, int scratch) {
    this.scratch = scratch;
    int n = Integer.highestOneBit(Math.max(1, size - 1)) << 1;
    this.slots = new Slot[n];
    for (int i = 0; i < n; i++) {
      slots[i] = new Slot();
    }
    this.mask = n - 1;
  }

  /**
   * A holder of {@code nanos} and {@code observed}, from the pool or new, owned by {@code owner}
   * until given back.
   */
  public Start take(long nanos, Object owner, int observed) {
    Start s = (Start) HELD.getAndSet(slots[index()], (Start) null);
    if (s == null) {
      s = new Start(scratch);
    }
    s.nanos = nanos;
    s.owner = owner;
    s.observed = observed;
    return s;
  }

  /**
   * Gives {@code start} back if {@code owner} still owns it, and returns whether it did: a second
   * stop of one observation finds the holder given back (or another's) and gives nothing twice.
   */
  public boolean give(Start start, Object owner) {
    if (start.owner != owner) {
      return false;
    }
    start.owner = null;
    HELD.compareAndSet(slots[index()], (Start) null, start);
    return true;
  }

  private int index() {
    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+
    long id = Thread.currentThread().getId();
    return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
  }
}
