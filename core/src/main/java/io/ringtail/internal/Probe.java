package io.ringtail.internal;

/**
 * A thread's choice of stripe, shared by every striped recorder the thread records into (windows,
 * service levels), in the manner of {@code Striped64}'s probe: it starts at the thread's id, so
 * threads start spread, and a thread that meets another on its stripe moves to a pseudo-random
 * other one.
 *
 * <p>Internal. Confined to its thread.
 */
public final class Probe {
  private static final ThreadLocal<Probe> CURRENT = ThreadLocal.withInitial(Probe::new);

  private int hash;

  private Probe() {
    int id = (int) Thread.currentThread().getId();
    hash = id == 0 ? 1 : id;
  }

  /** The calling thread's probe. */
  public static Probe current() {
    return CURRENT.get();
  }

  /** Indexes a power-of-two stripe table by its low bits; never zero. */
  public int hash() {
    return hash;
  }

  /** Moves to another pseudo-random stripe (Marsaglia's xorshift). */
  public void rehash() {
    int h = hash;
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    hash = h;
  }
}
