package io.ringtail.spring.slo;

import io.ringtail.slo.BurnRateAlert;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A burn-rate alert of a declared service level fired or resolved, as {@link ServiceLevels}
 * publishes it: a Spring application event (listen with
 * {@code @EventListener(ServiceLevelAlertEvent.class)}) and one WARNING log line. A fleet-wide
 * service level's events are published by one instance of the fleet only: the one that owns the
 * objective. Immutable.
 *
 * @param type fired or resolved
 * @param serviceLevel the service level's name ({@code checkout})
 * @param objective the objective's name ({@code fast})
 * @param alert the alert's name ({@code page-1h})
 * @param severity page or ticket
 * @param factor the burn rate both windows had to be above
 * @param longWindow the alert's long window
 * @param shortWindow the alert's short window
 * @param longBurnRate the burn rate over the long window at this evaluation; NaN without events
 * @param shortBurnRate the burn rate over the short window at this evaluation; NaN without events
 */
public record ServiceLevelAlertEvent(
    Type type,
    String serviceLevel,
    String objective,
    String alert,
    BurnRateAlert.Severity severity,
    double factor,
    Duration longWindow,
    Duration shortWindow,
    double longBurnRate,
    double shortBurnRate) {

  /** What happened. */
  public enum Type {
    /** The burn rates over both windows went above the factor. */
    FIRED,
    /** One of them came back to the factor or below, after a fire. */
    RESOLVED
  }

  /** Checks the names and windows are given. */
  public ServiceLevelAlertEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(serviceLevel, "serviceLevel");
    Objects.requireNonNull(objective, "objective");
    Objects.requireNonNull(alert, "alert");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(longWindow, "longWindow");
    Objects.requireNonNull(shortWindow, "shortWindow");
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "Service level %s %s: %s/%s %s (%s), burn rate %.2f over %s and %.2f over %s, factor %s",
        serviceLevel,
        type,
        serviceLevel,
        objective,
        alert,
        severity.label(),
        longBurnRate,
        longWindow,
        shortBurnRate,
        shortWindow,
        factor);
  }
}
