package io.ringtail.internal;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The record path every service level shares: a request is classified against all objectives at
 * once (one bit per objective that counts it bad: too slow for a latency objective, failed for an
 * availability one) and counted in the recording thread's stripe of a {@link CountStripes}, with no
 * lock and no allocation. The counts belong to a live interval; the first record past its end (the
 * edge) closes it, under this recorder's lock, by calling the owner's {@link Intervals}, which
 * drains the stripes into its windows and names the next edge. A record that finds the lock taken
 * goes on without waiting: whoever holds it closes the interval.
 *
 * <p>Counts: index 0 of a drained row is the requests, index {@code 1 + i} those bad for objective
 * {@code i}. Thread-safe.
 */
public final class OutcomeRecorder {
  /** What a service level does when an interval closes. */
  @FunctionalInterface
  public interface Intervals {
    /**
     * Closes the interval ending at or before {@code now} (the stripes drained into the windows),
     * under the recorder's lock; returns the end of the next interval.
     */
    long close(long now);
  }

  private final LongSupplier nanoTime;
  private final long[] latencyLimits;
  private final int failureMask;
  private final CountStripes stripes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Intervals intervals;
  private volatile long nextEdge;

  /**
   * A recorder of objectives' outcomes: objective {@code i} counts a request bad when its latency
   * is above {@code latencyLimits[i]} ({@code Long.MAX_VALUE}: never) or, if bit {@code i} of
   * {@code failureMask} is set, when it failed. Times are read from {@code nanoTime}; the stripes
   * grow up to {@code growthBound}; the live interval ends at {@code firstEdge}, and {@code
   * intervals} closes each.
   */
  public OutcomeRecorder(
      long[] latencyLimits,
      int failureMask,
      LongSupplier nanoTime,
      int growthBound,
      Intervals intervals,
      long firstEdge) {
    this.latencyLimits = latencyLimits.clone();
    this.failureMask = failureMask;
    this.nanoTime = nanoTime;
    this.stripes = new CountStripes(latencyLimits.length + 1, growthBound);
    this.intervals = intervals;
    this.nextEdge = firstEdge;
  }

  /** Counts one request at {@code timeNanos}: its latency and whether it failed. */
  public void recordAt(long latencyNanos, boolean failed, long timeNanos) {
    if (timeNanos - nextEdge >= 0) {
      tryAdvance(timeNanos);
    }
    int bad = failed ? failureMask : 0;
    long[] limits = latencyLimits;
    for (int i = 0; i < limits.length; i++) {
      if (latencyNanos > limits[i]) {
        bad |= 1 << i;
      }
    }
    stripes.add(bad);
  }

  private void tryAdvance(long timeNanos) {
    if (lock.tryLock()) {
      try {
        long now = nanoTime.getAsLong();
        advanceLocked(timeNanos - now > 0 ? now : timeNanos);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Closes the live interval if {@code now} is past its end; the caller holds {@link #lock()}. */
  public void advanceLocked(long now) {
    if (now - nextEdge < 0) {
      return;
    }
    nextEdge = intervals.close(now);
    stripes.growIfContended();
  }

  /** The lock under which intervals close and status is read. */
  public ReentrantLock lock() {
    return lock;
  }

  /** The stripes the requests are counted in (drain them under {@link #lock()}). */
  public CountStripes stripes() {
    return stripes;
  }

  /** Heap held: the object, its limits and lock, and the stripes. */
  public long footprintBytes() {
    return 40 + 48 + 16 + 8L * latencyLimits.length + stripes.footprintBytes();
  }
}
