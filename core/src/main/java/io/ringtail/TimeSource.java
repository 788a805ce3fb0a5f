package io.ringtail;

/**
 * A monotonic source of nanosecond readings from an arbitrary origin, like {@link
 * System#nanoTime()}.
 *
 * <p>Windows never read a clock directly: they read the time source they were built with, so tests
 * can inject a {@link ManualTimeSource} and advance it explicitly. Readings are compared only by
 * difference, so a source may start anywhere, cross zero and wrap past {@link Long#MAX_VALUE}, as
 * long as two readings a window compares lie within 292 years.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface TimeSource {

  /** Returns the current reading in nanoseconds. */
  long nanoTime();

  /** The JVM's monotonic clock, {@link System#nanoTime()}. */
  static TimeSource system() {
    return SystemTimeSource.INSTANCE;
  }
}

enum SystemTimeSource implements TimeSource {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
