package io.ringtail.examples.dashboard;

import java.util.List;

/**
 * What the dashboard saw at one sampling instant: both windows' statistics, the simulated regime,
 * the alert state and the alert events of this sample. Immutable.
 */
record Point(
    long epochMillis,
    long elapsedNanos,
    Regime regime,
    WindowStats shortWindow,
    WindowStats longWindow,
    boolean alertFiring,
    List<String> alertEvents) {}
