package io.ringtail.slo;

import io.ringtail.TimeSource;
import io.ringtail.internal.Checks;

/**
 * A service level that events are recorded into once each, judged at once against every {@link
 * Objective} of its {@link ServiceLevelConfig}, and whose {@link #status()} gives the SLI, the
 * error budget, the burn rates and the alerts' conditions.
 *
 * <p>The in-process service level ({@link #inProcess}) keeps, per objective, the good and total
 * events of each window in buckets of 1/60 of the window: a window is its live partial bucket plus
 * the 59 complete buckets before it, and spans between 59/60 of its length and its length. Its
 * counts live in the process and <b>start empty</b> whenever it is created: after a restart its
 * budget is whole and its windows empty until traffic fills them again.
 *
 * <p>Implementations are thread-safe: any number of threads may record while others read the
 * status. Recording never throws, never blocks and never allocates.
 */
public interface ServiceLevel {

  /** An in-process service level reading {@link TimeSource#system()}. */
  static ServiceLevel inProcess(ServiceLevelConfig config) {
    return inProcess(config, TimeSource.system());
  }

  /** An in-process service level reading {@code timeSource}; its counts start empty. */
  static ServiceLevel inProcess(ServiceLevelConfig config, TimeSource timeSource) {
    return new InProcessServiceLevel(
        Checks.requireNonNull("config", config), Checks.requireNonNull("timeSource", timeSource));
  }

  /**
   * Records one event at the time source's current reading.
   *
   * @param latencyNanos how long it took, for latency objectives
   * @param failed whether it failed, for availability objectives
   */
  void record(long latencyNanos, boolean failed);

  /**
   * Records one event at {@code timeNanos}, a reading of the time source the caller already has. A
   * reading earlier than the live bucket counts in the live bucket.
   */
  void recordAt(long latencyNanos, boolean failed, long timeNanos);

  /**
   * Where the service level stands now: every objective's counts, budget, burn rates and alerts.
   */
  ServiceLevelStatus status();

  /** The configuration. */
  ServiceLevelConfig config();

  /** The time source it reads. */
  TimeSource timeSource();

  /** Bytes it holds in the heap. */
  long footprintBytes();
}
