package io.ringtail;

/**
 * A thread's choice of stripe, shared by every window the thread records into, in the manner of
 * {@code Striped64}'s probe: it starts at the thread's id, so threads start spread as before, and a
 * thread that meets another on its stripe moves to a pseudo-random other one.
 *
 * <p>Confined to its thread.
 */
final class Probe {
  private static final ThreadLocal<Probe> CURRENT = ThreadLocal.withInitial(Probe::new);

  /** Indexes a power-of-two stripe table by its low bits; never zero. */
  int hash;

  private Probe() {
    int id = (int) Thread.currentThread().getId();
    hash = id == 0 ? 1 : id;
  }

  static Probe current() {
    return CURRENT.get();
  }

  /** Moves to another pseudo-random stripe (Marsaglia's xorshift). */
  void rehash() {
    int h = hash;
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    hash = h;
  }
}
