package io.ringtail.examples.dashboard;

/**
 * What the dashboard saw at one sampling instant: both windows' statistics, the simulated
 * regime and the alert state. Immutable.
 */
record Point(long epochMillis, long elapsedNanos, Regime regime, WindowStats shortWindow,
    WindowStats longWindow, boolean alertFiring) {}
