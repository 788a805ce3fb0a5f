package io.ringtail.alert;

/**
 * Receives the events of an {@link AlertMonitor}, on the thread that evaluates, in order.
 *
 * <p>Keep it quick (hand slow work to an executor of yours). An exception it throws is logged and
 * does not stop other listeners or later evaluations.
 */
@FunctionalInterface
public interface AlertListener {

  /** A rule fired or resolved. */
  void onEvent(AlertEvent event);
}
