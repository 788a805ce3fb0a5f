package io.ringtail.opentelemetry;

import io.ringtail.internal.Checks;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The unit instruments report values in, and the factor from a window's recorded value to it: both
 * bindings take nanoseconds to seconds unless told otherwise.
 */
record ValueUnit(String unit, double scale) {
  /** Nanosecond durations reported in seconds: the default of both bindings. */
  static final ValueUnit NANOSECONDS = new ValueUnit("s", 1e-9);

  /** Durations recorded in {@code timeUnit}, reported in seconds. */
  static ValueUnit durations(TimeUnit timeUnit) {
    return new ValueUnit("s", Objects.requireNonNull(timeUnit, "timeUnit").toNanos(1) / 1e9);
  }

  /** Values that are not durations, in this UCUM unit, reported as they are. */
  static ValueUnit values(String unit) {
    return new ValueUnit(Checks.requireNonBlank("unit", unit), 1.0);
  }
}
