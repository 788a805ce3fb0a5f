package io.ringtail.examples.dashboard;

/**
 * The dashboard's view of its alert: evaluated once per sample against the live windows.
 * Implementations are driven by one sampling thread.
 */
interface AlertMonitor {

  /** What the rule checks, for people. */
  String description();

  /** Re-evaluates the rule at {@code nowNanos} and returns whether it is firing. */
  boolean evaluate(long nowNanos);

  /** Where the rule comes from, shown on the page (e.g. the library package). */
  String source();
}
