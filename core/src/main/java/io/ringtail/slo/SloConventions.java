package io.ringtail.slo;

import io.ringtail.internal.Checks;
import java.time.Duration;

/**
 * The names every binding of service levels agrees on, so that the Micrometer meters and the
 * generated Prometheus rules read the same series: meter names (Micrometer's dot form; Prometheus
 * shows {@code ringtail.slo.events} as {@code ringtail_slo_events_total}), labels, and how a window
 * is written in a label ({@link #windowLabel}, a Prometheus duration such as {@code 5m}).
 *
 * <p>Stateless and thread-safe.
 */
public final class SloConventions {
  /** Prefix of every service-level meter: {@value}. */
  public static final String PREFIX = "ringtail.slo";

  /** Counter of the events recorded since the process started, per objective: {@value}. */
  public static final String EVENTS = PREFIX + ".events";

  /** Counter of those events that met the objective: {@value}. */
  public static final String GOOD_EVENTS = PREFIX + ".good.events";

  /** Gauge of the SLI over the compliance period, 0 to 1: {@value}. */
  public static final String SLI = PREFIX + ".sli";

  /** Gauge of the objective's target ratio: {@value}. */
  public static final String TARGET = PREFIX + ".target";

  /** Gauge of the error budget left over the period, 1 (untouched) and less: {@value}. */
  public static final String BUDGET_REMAINING = PREFIX + ".budget.remaining";

  /** Gauge of the burn rate over a window, tagged {@link #WINDOW_TAG}: {@value}. */
  public static final String BURN_RATE = PREFIX + ".burn.rate";

  /**
   * Gauge of a burn-rate alert's condition, 1 while it holds and 0 otherwise, tagged {@link
   * #ALERT_TAG} and {@link #SEVERITY_TAG}: {@value}.
   */
  public static final String ALERT_FIRING = PREFIX + ".alert.firing";

  /** The label carrying the service level's name: {@value}. */
  public static final String SLO_TAG = "slo";

  /** The label carrying the objective's name: {@value}. */
  public static final String OBJECTIVE_TAG = "objective";

  /** The label carrying a window, as {@link #windowLabel} writes it: {@value}. */
  public static final String WINDOW_TAG = "window";

  /** The label carrying a burn-rate alert's name ({@code page-1h}): {@value}. */
  public static final String ALERT_TAG = "alert";

  /** The label carrying a burn-rate alert's severity ({@code page}, {@code ticket}): {@value}. */
  public static final String SEVERITY_TAG = "severity";

  private static final long MILLI = 1_000_000L;
  private static final long[] UNITS = {
    86_400_000 * MILLI, 3_600_000 * MILLI, 60_000 * MILLI, 1_000 * MILLI, MILLI
  };
  private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms"};

  private SloConventions() {}

  /**
   * A window as a Prometheus duration, largest units first, in days, hours, minutes, seconds and
   * milliseconds: {@code 5m}, {@code 1h30m}, {@code 30d}, {@code 1s500ms}.
   *
   * @throws IllegalArgumentException if the window is not a positive whole number of milliseconds
   */
  public static String windowLabel(Duration window) {
    long nanos = Checks.requirePositiveNanos("window", window);
    if (nanos % MILLI != 0) {
      throw Checks.invalid("window", "a whole number of milliseconds", window);
    }
    StringBuilder label = new StringBuilder();
    for (int i = 0; i < UNITS.length; i++) {
      long n = nanos / UNITS[i];
      if (n > 0) {
        label.append(n).append(UNIT_NAMES[i]);
        nanos -= n * UNITS[i];
      }
    }
    return label.toString();
  }
}
