package io.ringtail.internal;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * The argument checks every Ringtail module uses, so that bad input fails the same way everywhere:
 * {@link NullPointerException} naming the parameter for a null, and {@link
 * IllegalArgumentException} reading {@code "<name> must be <requirement>, but was <value>"} for a
 * bad value. Each check costs a comparison or two: none depends on the size of the value (a
 * duration's nanoseconds or a decimal's exponent are never expanded).
 *
 * <p>Internal: public only so that every module can reach it. Stateless and thread-safe.
 */
public final class Checks {
  /** The longest duration that fits in a {@code long} of nanoseconds, about 292 years. */
  public static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

  private static final Duration MIN_NANOS = MAX_NANOS.negated();

  private Checks() {}

  /** {@code value}, or a {@link NullPointerException} whose message is {@code name}. */
  public static <T> T requireNonNull(String name, T value) {
    if (value == null) {
      throw new NullPointerException(name);
    }
    return value;
  }

  /** A non-null, non-empty string. */
  public static String requireNonEmpty(String name, String value) {
    requireNonNull(name, value);
    if (value.isEmpty()) {
      throw invalid(name, "non-empty", value);
    }
    return value;
  }

  /** A non-null string that is not empty or only whitespace. */
  public static String requireNonBlank(String name, String value) {
    requireNonNull(name, value);
    if (value.isBlank()) {
      throw invalid(name, "non-blank", value);
    }
    return value;
  }

  /** A non-null string of 1 to {@code maxLength} characters. */
  public static String requireLength(String name, String value, int maxLength) {
    requireNonNull(name, value);
    if (value.isEmpty() || value.length() > maxLength) {
      String shown = value.length() > 64 ? value.length() + " characters" : quote(value);
      throw new IllegalArgumentException(
          name + " must be 1 to " + maxLength + " characters, but was " + shown);
    }
    return value;
  }

  /** A value above zero. */
  public static long requirePositive(String name, long value) {
    if (value <= 0) {
      throw invalid(name, "positive", value);
    }
    return value;
  }

  /** A value of zero or more. */
  public static long requireNonNegative(String name, long value) {
    if (value < 0) {
      throw invalid(name, "zero or positive", value);
    }
    return value;
  }

  /** A value of at least {@code min}. */
  public static long requireAtLeast(String name, long value, long min) {
    if (value < min) {
      throw invalid(name, "at least " + min, value);
    }
    return value;
  }

  /** A value in {@code [min, max]}. */
  public static long requireBetween(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw invalid(name, "between " + min + " and " + max, value);
    }
    return value;
  }

  /** A value in {@code [min, max]}. */
  public static int requireBetween(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw invalid(name, "between " + min + " and " + max, value);
    }
    return value;
  }

  /** A number that is neither NaN nor infinite. */
  public static double requireFinite(String name, double value) {
    if (!Double.isFinite(value)) {
      throw invalid(name, "a finite number", value);
    }
    return value;
  }

  /** A number in {@code [min, max]}; NaN never is. */
  public static double requireBetween(String name, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw invalid(name, "between " + min + " and " + max, value);
    }
    return value;
  }

  /** A percentile, 0 to 100. */
  public static double requirePercentile(double percentile) {
    if (!(percentile >= 0.0 && percentile <= 100.0)) {
      throw invalid("percentile", "between 0 and 100", percentile);
    }
    return percentile;
  }

  /** A positive duration of at most {@link #MAX_NANOS}, returned in nanoseconds. */
  public static long requirePositiveNanos(String name, Duration value) {
    long nanos = requireNanos(name, value);
    if (nanos <= 0) {
      throw invalid(name, "positive", value);
    }
    return nanos;
  }

  /** A duration of zero to {@link #MAX_NANOS}, returned in nanoseconds. */
  public static long requireNonNegativeNanos(String name, Duration value) {
    long nanos = requireNanos(name, value);
    if (nanos < 0) {
      throw invalid(name, "zero or positive", value);
    }
    return nanos;
  }

  /** A duration in {@code [min, max]}, returned in nanoseconds; {@code max} fits in nanoseconds. */
  public static long requireBetweenNanos(String name, Duration value, Duration min, Duration max) {
    requireNonNull(name, value);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw invalid(name, "between " + min + " and " + max, value);
    }
    return value.toNanos();
  }

  /**
   * A duration that fits in a {@code long} of nanoseconds (about ±292 years), returned in
   * nanoseconds, without ever throwing {@link ArithmeticException}.
   */
  public static long requireNanos(String name, Duration value) {
    requireNonNull(name, value);
    if (value.compareTo(MAX_NANOS) > 0 || value.compareTo(MIN_NANOS) < 0) {
      throw invalid(name, "within " + MAX_NANOS + " (a long of nanoseconds)", value);
    }
    return value.toNanos();
  }

  /** A non-null decimal above zero. */
  public static BigDecimal requirePositive(String name, BigDecimal value) {
    requireNonNull(name, value);
    if (value.signum() <= 0) {
      throw invalid(name, "positive", value);
    }
    return value;
  }

  /**
   * {@code "<name> must be <requirement>, but was <value>"} as an {@link IllegalArgumentException};
   * a string value is quoted so an empty one shows.
   */
  public static IllegalArgumentException invalid(String name, String requirement, Object value) {
    Object shown = value instanceof String s ? quote(s) : value;
    return new IllegalArgumentException(name + " must be " + requirement + ", but was " + shown);
  }

  /** As {@link #invalid(String, String, Object)}, with the exception that revealed it as cause. */
  public static IllegalArgumentException invalid(
      String name, String requirement, Object value, Throwable cause) {
    IllegalArgumentException e = invalid(name, requirement, value);
    e.initCause(cause);
    return e;
  }

  /**
   * {@code message}, as it is, as an {@link IllegalArgumentException}: for a configuration that a
   * {@code build()} refuses as a whole rather than for one argument's value (no window added, a
   * window that keeps no cumulative histogram), where {@link #invalid(String, String, Object)} has
   * no name to start with. The message says what to change.
   */
  public static IllegalArgumentException invalidConfiguration(String message) {
    return new IllegalArgumentException(message);
  }

  /**
   * {@code "<property>: <the check's message>"} as an {@link IllegalArgumentException} caused by
   * {@code check}: a check of a value that came from a configuration property (such as {@code
   * ringtail.observations.publish-interval}), so that the message names the property to fix.
   */
  public static IllegalArgumentException atProperty(
      String property, IllegalArgumentException check) {
    return new IllegalArgumentException(property + ": " + check.getMessage(), check);
  }

  /**
   * {@code check} renamed: its message with the argument {@code name} it starts with replaced by
   * the configuration {@code property} the value came from (as {@link #atProperty} when it does not
   * start with it), caused by {@code check}.
   */
  public static IllegalArgumentException asProperty(
      String name, String property, IllegalArgumentException check) {
    String message = check.getMessage();
    if (message == null || !message.startsWith(name + " ")) {
      return atProperty(property, check);
    }
    return new IllegalArgumentException(property + message.substring(name.length()), check);
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }
}
