package io.ringtail.benchmarks;

import io.ringtail.TimeSource;
import java.util.concurrent.TimeUnit;

/**
 * A settable clock that simulations move explicitly; each contender reads it through its own
 * library's clock type (see {@link Contender#create}).
 *
 * <p>Thread-safe for one mover and any number of readers.
 */
final class SimClock implements TimeSource {
  /** Wall-clock epoch the simulated wall time starts from, so peers never see time zero. */
  static final long EPOCH_MILLIS = 1_700_000_000_000L;

  private volatile long nanos;

  @Override
  public long nanoTime() {
    return nanos;
  }

  long wallMillis() {
    return EPOCH_MILLIS + TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  void set(long nanos) {
    this.nanos = nanos;
  }
}
