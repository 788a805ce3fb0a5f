package io.ringtail.benchmarks.toolkit;

import io.ringtail.TimeSource;
import java.util.concurrent.TimeUnit;

/**
 * A settable clock that simulations move explicitly; each contender reads it through its own
 * library's clock type.
 *
 * <p>Thread-safe for one mover and any number of readers.
 */
public final class SimClock implements TimeSource {
  /** Wall-clock epoch the simulated wall time starts from, so peers never see time zero. */
  public static final long EPOCH_MILLIS = 1_700_000_000_000L;

  private volatile long nanos;

  @Override
  public long nanoTime() {
    return nanos;
  }

  public long wallMillis() {
    return EPOCH_MILLIS + TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  public void set(long nanos) {
    this.nanos = nanos;
  }
}
