package io.ringtail.examples.dashboard;

import io.ringtail.slo.ServiceLevelStatus;
import java.util.List;

/**
 * What the dashboard saw at one sampling instant: both windows' statistics, the simulated regime,
 * the alert state and the alert events of this sample, and the service level's status with the most
 * severe of its alerts firing ({@code page}, {@code ticket} or {@code ok}). Immutable.
 */
record Point(
    long epochMillis,
    long elapsedNanos,
    Regime regime,
    WindowStats shortWindow,
    WindowStats longWindow,
    boolean alertFiring,
    List<String> alertEvents,
    ServiceLevelStatus slo,
    String sloState) {}
