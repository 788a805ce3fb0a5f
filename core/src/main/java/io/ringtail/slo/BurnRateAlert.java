package io.ringtail.slo;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A multiwindow burn-rate alert of the Google SRE workbook ("Alerting on SLOs"): its condition
 * holds while the burn rate over the long window <b>and</b> over the short window are both above
 * the factor. The long window sets how much budget must burn before it fires; the short window
 * makes it resolve soon after the burning stops.
 *
 * <p>For a steady burn rate {@code b > factor} starting after a quiet spell, under steady traffic,
 * the condition starts to hold within the {@linkplain #detectionTime detection time} {@code factor
 * × longWindow / b}, and stops holding within the {@linkplain #resetTime reset time} {@code
 * shortWindow × (1 - factor / b)} after the burning stops (if it burned for at least the short
 * window): a bucket-aligned window is never longer than its length, so it reaches the factor no
 * later than an exact one would. Add the interval at which the status is read.
 *
 * <p>Immutable and thread-safe; the factories check their arguments at once.
 */
public final class BurnRateAlert {
  /** Who an alert is for. */
  public enum Severity {
    /** Wake someone up. */
    PAGE,
    /** Handle in working hours. */
    TICKET;

    /** The lower-case name, as in labels: {@code page}, {@code ticket}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Severity severity;
  private final double factor;
  private final Duration longWindow;
  private final Duration shortWindow;
  private final String name;

  private BurnRateAlert(
      Severity severity, double factor, Duration longWindow, Duration shortWindow) {
    this.severity = severity;
    this.factor = factor;
    this.longWindow = longWindow;
    this.shortWindow = shortWindow;
    this.name = severity.label() + "-" + SloConventions.windowLabel(longWindow);
  }

  /**
   * An alert of {@code severity} whose condition holds while the burn rate is above {@code factor}
   * over both windows.
   *
   * @throws IllegalArgumentException if the factor is not positive and finite, a window is not a
   *     positive whole number of milliseconds, or the long window is not longer than the short one
   */
  public static BurnRateAlert of(
      Severity severity, double factor, Duration longWindow, Duration shortWindow) {
    Checks.requireNonNull("severity", severity);
    if (!(factor > 0.0 && factor < Double.POSITIVE_INFINITY)) {
      throw Checks.invalid("factor", "positive and finite", factor);
    }
    requireWindow("longWindow", longWindow);
    requireWindow("shortWindow", shortWindow);
    if (longWindow.compareTo(shortWindow) <= 0) {
      throw Checks.invalid("longWindow", "longer than shortWindow " + shortWindow, longWindow);
    }
    return new BurnRateAlert(severity, factor, longWindow, shortWindow);
  }

  /** {@link #of} with {@link Severity#PAGE}. */
  public static BurnRateAlert page(double factor, Duration longWindow, Duration shortWindow) {
    return of(Severity.PAGE, factor, longWindow, shortWindow);
  }

  /** {@link #of} with {@link Severity#TICKET}. */
  public static BurnRateAlert ticket(double factor, Duration longWindow, Duration shortWindow) {
    return of(Severity.TICKET, factor, longWindow, shortWindow);
  }

  /**
   * The workbook's alerts: page at 14.4 over 1 h (short window 5 min), page at 6 over 6 h (30 min),
   * ticket at 1 over 3 days (6 h). Over a 30-day period they fire once 2 %, 5 % and 10 % of the
   * budget has burned at that rate.
   */
  public static List<BurnRateAlert> workbook() {
    return List.of(
        page(14.4, Duration.ofHours(1), Duration.ofMinutes(5)),
        page(6, Duration.ofHours(6), Duration.ofMinutes(30)),
        ticket(1, Duration.ofDays(3), Duration.ofHours(6)));
  }

  private static void requireWindow(String name, Duration window) {
    Checks.requirePositiveNanos(name, window);
    if (window.toNanos() % 1_000_000 != 0) {
      throw Checks.invalid(name, "a whole number of milliseconds", window);
    }
  }

  /**
   * The alert's name, unique in its service level: the severity and long window, {@code page-1h}.
   */
  public String name() {
    return name;
  }

  /** Page or ticket. */
  public Severity severity() {
    return severity;
  }

  /** The burn rate both windows must be above. */
  public double factor() {
    return factor;
  }

  /** The long window. */
  public Duration longWindow() {
    return longWindow;
  }

  /** The short window, shorter than the long one. */
  public Duration shortWindow() {
    return shortWindow;
  }

  /**
   * How long a steady burn rate {@code burnRate} takes at most to make the condition hold, from a
   * quiet start under steady traffic: {@code factor × longWindow / burnRate}; empty when it never
   * does ({@code burnRate <= factor}).
   */
  public Optional<Duration> detectionTime(double burnRate) {
    if (!(burnRate > factor)) {
      return Optional.empty();
    }
    return Optional.of(
        Duration.ofNanos((long) Math.ceil(longWindow.toNanos() * factor / burnRate)));
  }

  /**
   * How long the condition goes on holding at most once a steady burn rate {@code burnRate} that
   * lasted at least the short window stops: {@code shortWindow × (1 - factor / burnRate)}; zero
   * when it never held ({@code burnRate <= factor}).
   */
  public Duration resetTime(double burnRate) {
    if (!(burnRate > factor)) {
      return Duration.ZERO;
    }
    return Duration.ofNanos((long) Math.ceil(shortWindow.toNanos() * (1.0 - factor / burnRate)));
  }

  /**
   * The fraction of a {@code period}'s budget burned by the time the condition holds, at any burn
   * rate above the factor: {@code factor × longWindow / period} (0.02 for 14.4 over 1 h in 30
   * days).
   */
  public double budgetConsumed(Duration period) {
    long periodNanos = Checks.requirePositiveNanos("period", period);
    return factor * longWindow.toNanos() / periodNanos;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BurnRateAlert other
        && severity == other.severity
        && Double.compare(factor, other.factor) == 0
        && longWindow.equals(other.longWindow)
        && shortWindow.equals(other.shortWindow);
  }

  @Override
  public int hashCode() {
    return Objects.hash(severity, factor, longWindow, shortWindow);
  }

  @Override
  public String toString() {
    return "BurnRateAlert["
        + name
        + ": burn rate above "
        + factor
        + " over "
        + SloConventions.windowLabel(longWindow)
        + " and "
        + SloConventions.windowLabel(shortWindow)
        + "]";
  }
}
