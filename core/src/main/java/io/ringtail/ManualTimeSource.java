package io.ringtail;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} that moves only when told to: for tests and simulations.
 *
 * <p>Thread-safe: any thread may read or move it.
 */
public final class ManualTimeSource implements TimeSource {
  private final AtomicLong nanos;

  /** Starts at reading zero. */
  public ManualTimeSource() {
    this(0L);
  }

  /** Starts at the given reading. */
  public ManualTimeSource(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  /**
   * Moves the reading forward (or, for a negative amount, backward) by {@code amount}.
   *
   * @throws NullPointerException if amount is null
   * @throws IllegalArgumentException if amount does not fit in a {@code long} of nanoseconds
   */
  public ManualTimeSource advance(Duration amount) {
    return advanceNanos(Checks.requireNanos("amount", amount));
  }

  /** Moves the reading by {@code deltaNanos}, wrapping like {@link System#nanoTime()} would. */
  public ManualTimeSource advanceNanos(long deltaNanos) {
    nanos.addAndGet(deltaNanos);
    return this;
  }

  /** Sets the reading. */
  public ManualTimeSource set(long readingNanos) {
    nanos.set(readingNanos);
    return this;
  }

  @Override
  public String toString() {
    return "ManualTimeSource[" + nanos.get() + " ns]";
  }
}
