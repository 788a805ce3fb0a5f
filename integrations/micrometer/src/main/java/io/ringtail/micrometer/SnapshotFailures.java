package io.ringtail.micrometer;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Logs the snapshot failures of one binding's windows (a keyed binding's every key) once per
 * outage: the first failure as a WARNING with its stack trace, naming the window and key; further
 * failures only at DEBUG until a snapshot succeeds, which is logged once at INFO. A Redis window
 * during an outage thus logs one stack trace, not one per key per scrape. Thread-safe.
 */
final class SnapshotFailures {
  private static final System.Logger LOG = System.getLogger(ScrapeSnapshot.class.getName());

  private final AtomicBoolean failing = new AtomicBoolean();

  /** {@code what} (a window and key, as a person reads it) gave no snapshot. */
  void failed(String what, RuntimeException e) {
    if (failing.compareAndSet(false, true)) {
      LOG.log(
          Level.WARNING,
          what
              + " gave no snapshot; its gauges read NaN until it does (further failures of this"
              + " binding are logged at DEBUG until then)",
          e);
    } else if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(Level.DEBUG, what + " gave no snapshot: " + e);
    }
  }

  /** {@code what} gave a snapshot. */
  void succeeded(String what) {
    if (failing.get() && failing.compareAndSet(true, false)) {
      LOG.log(Level.INFO, what + " gives snapshots again");
    }
  }
}
