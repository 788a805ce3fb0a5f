package io.ringtail.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A bad-input sweep: calls of a public API fed nulls, empty strings, zero, negative and huge
 * durations, NaN, infinities and extremes, each with what it must do. A case either works, or
 * throws at once {@link NullPointerException} whose message is the parameter's name, or {@link
 * IllegalArgumentException} reading {@code "<parameter> must ..., but was ..."} (Ringtail's
 * argument-check convention). {@link #check} runs a case under a 2 s limit that only guards against
 * a hang or a CPU burn; it is not a performance assertion.
 *
 * <p>Feed {@link Cases#stream()} to a {@code @ParameterizedTest} whose body is {@link #check}. Not
 * thread-safe while cases are added.
 */
public final class BadInput {
  /** The most a case may take before it counts as a hang. */
  public static final Duration HANG_GUARD = Duration.ofSeconds(2);

  /** A duration far beyond a {@code long} of nanoseconds. */
  public static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);

  /** The longest duration that fits in a {@code long} of nanoseconds. */
  public static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

  /** One nanosecond beyond {@link #LONGEST}. */
  public static final Duration BEYOND_LONGEST = LONGEST.plusNanos(1);

  private BadInput() {}

  /** A call that may throw anything. */
  @FunctionalInterface
  public interface Call {
    /** Makes the call. */
    void run() throws Exception;
  }

  /** A call taking a duration. */
  @FunctionalInterface
  public interface DurationCall {
    /** Makes the call with {@code d}. */
    void run(Duration d) throws Exception;
  }

  /**
   * One call and what it must do.
   *
   * @param description what is called with what, shown as the test's name
   * @param call the call
   * @param rejects {@code null} if the call must work, else the exception it must throw
   * @param parameter the parameter the exception must name
   */
  public record Case(
      String description, Call call, Class<? extends RuntimeException> rejects, String parameter) {
    @Override
    public String toString() {
      return description;
    }
  }

  /** Runs {@code c} and checks it did what it must, within {@link #HANG_GUARD}. */
  public static void check(Case c) {
    Throwable thrown =
        assertTimeoutPreemptively(
            HANG_GUARD, () -> catchThrowable(c.call()::run), () -> c.description() + " hung");
    if (c.rejects() == null) {
      assertThat(thrown).as(c.description()).isNull();
    } else if (c.rejects() == NullPointerException.class) {
      assertThat(thrown)
          .as(c.description())
          .isExactlyInstanceOf(NullPointerException.class)
          .hasMessage(c.parameter());
    } else {
      assertThat(thrown)
          .as(c.description())
          .isExactlyInstanceOf(c.rejects())
          .hasMessageStartingWith(c.parameter() + " must ")
          .hasMessageContaining(", but was ");
    }
  }

  /** A new, empty list of cases. */
  public static Cases cases() {
    return new Cases();
  }

  /** A list of cases under construction. */
  public static final class Cases {
    private final List<Case> cases = new ArrayList<>();

    private Cases() {}

    /** {@code call} must work. */
    public Cases works(String description, Call call) {
      cases.add(new Case(description, call, null, null));
      return this;
    }

    /** {@code call} must throw {@link NullPointerException} naming {@code parameter}. */
    public Cases rejectsNull(String description, Call call, String parameter) {
      cases.add(new Case(description, call, NullPointerException.class, parameter));
      return this;
    }

    /** {@code call} must throw {@link IllegalArgumentException} naming {@code parameter}. */
    public Cases rejects(String description, Call call, String parameter) {
      cases.add(new Case(description, call, IllegalArgumentException.class, parameter));
      return this;
    }

    /**
     * The duration cases of one parameter: null, zero, negative, the most negative, the longest
     * {@code long} of nanoseconds, one nanosecond beyond and {@link #HUGE}.
     *
     * @param zeroWorks whether zero is a valid value
     * @param longestWorks whether {@link #LONGEST} is a valid value
     */
    public Cases durations(
        String what, DurationCall call, String parameter, boolean zeroWorks, boolean longestWorks) {
      rejectsNull(what + " null", () -> call.run(null), parameter);
      if (zeroWorks) {
        works(what + " zero", () -> call.run(Duration.ZERO));
      } else {
        rejects(what + " zero", () -> call.run(Duration.ZERO), parameter);
      }
      rejects(what + " negative", () -> call.run(Duration.ofNanos(-1)), parameter);
      rejects(
          what + " most negative", () -> call.run(Duration.ofSeconds(Long.MIN_VALUE)), parameter);
      if (longestWorks) {
        works(what + " Long.MAX_VALUE ns", () -> call.run(LONGEST));
      }
      rejects(what + " Long.MAX_VALUE ns + 1", () -> call.run(BEYOND_LONGEST), parameter);
      rejects(what + " Long.MAX_VALUE s", () -> call.run(HUGE), parameter);
      return this;
    }

    /** The cases, for a {@code @MethodSource}. */
    public Stream<Case> stream() {
      return List.copyOf(cases).stream();
    }
  }
}
