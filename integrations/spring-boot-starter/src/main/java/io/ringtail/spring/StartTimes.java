package io.ringtail.spring;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The start times of observations in flight, in holders recycled through a small striped pool, so
 * that timing a request allocates nothing once the pool is warm. A holder goes back to the pool
 * when its observation stops, on whichever thread; a holder no slot can take is left to the garbage
 * collector, and one no slot can give is allocated. Each slot sits on a cache line of its own, and
 * a thread uses the slot its id hashes to, so request threads rarely meet. Thread-safe, lock-free.
 */
final class StartTimes {
  /** References per 64-byte cache line (compressed oops): one slot per line. */
  private static final int STRIDE = 16;

  /** When an observation started, on the windows' time source, and which one owns it. */
  static final class Start {
    long nanos;
    Object owner;
  }

  private final AtomicReferenceArray<Start> slots;
  private final int mask;

  /** A pool of {@code slots} holders at most (rounded up to a power of two). */
  StartTimes(int slots) {
    int n = Integer.highestOneBit(Math.max(1, slots - 1)) << 1;
    this.slots = new AtomicReferenceArray<>(n * STRIDE);
    this.mask = n - 1;
  }

  /** A holder of {@code nanos}, from the pool or new, owned by {@code owner} until given back. */
  Start take(long nanos, Object owner) {
    Start s = slots.getAndSet(index(), null);
    if (s == null) {
      s = new Start();
    }
    s.nanos = nanos;
    s.owner = owner;
    return s;
  }

  /**
   * Gives {@code start} back if {@code owner} still owns it, and returns whether it did: a second
   * stop of one observation finds the holder given back (or another's) and gives nothing twice.
   */
  boolean give(Start start, Object owner) {
    if (start.owner != owner) {
      return false;
    }
    start.owner = null;
    slots.compareAndSet(index(), null, start);
    return true;
  }

  private int index() {
    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+
    long id = Thread.currentThread().getId();
    return ((int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask) * STRIDE;
  }
}
