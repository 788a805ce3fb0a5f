package io.ringtail.decision;

import io.ringtail.internal.Checks;

/**
 * Fires when at least {@code N} distinct events for one key fall within a window {@code W}: the
 * correlation rule "10 failed logons for one account within 60 s".
 *
 * <h2>Semantics</h2>
 *
 * Each key has a <em>latest</em> time: the largest event time it has counted. Its window is {@code
 * (latest - W, latest]}. An event with time {@code t}:
 *
 * <ol>
 *   <li>is {@link ThresholdDecision.Outcome#EXPIRED EXPIRED} and not counted if {@code t <= latest
 *       - W};
 *   <li>else is a {@link ThresholdDecision.Outcome#DUPLICATE DUPLICATE} and not counted if the key
 *       holds an event with the same id timed after {@code max(latest, t) - W} (a replay; an event
 *       old enough to leave the window when this one counts is no longer held);
 *   <li>else is {@link ThresholdDecision.Outcome#COUNTED COUNTED}: {@code latest} becomes {@code
 *       max(latest, t)}, events now at or before {@code latest - W} are dropped, and the decision
 *       reports the remaining count.
 * </ol>
 *
 * Events may therefore arrive out of order by up to {@code W}. The decision {@linkplain
 * ThresholdDecision#fired() fires} when the event is counted and the count is at least {@code N}.
 * Event ids are compared per key; equal ids under different keys are distinct. A key holds at most
 * {@link ThresholdConfig#maxEventsPerKey()} events, the newest: counts saturate there while firing
 * stays exact.
 *
 * <p>Thread-safe; every call is atomic per key (see the package documentation).
 */
public interface ThresholdDetector {

  /**
   * An in-process detector holding at most 1,000,000 keys (see {@link #inProcess(ThresholdConfig,
   * long)}).
   */
  static ThresholdDetector inProcess(ThresholdConfig config) {
    return inProcess(config, KeyedStates.DEFAULT_MAXIMUM_KEYS);
  }

  /**
   * An in-process detector holding at most {@code maximumKeys} keys. Past that bound the keys least
   * likely to be used again are forgotten (Caffeine's size eviction), as is any key idle for longer
   * than {@link ThresholdConfig#idleExpiry()} on the time source; there is no background thread. A
   * forgotten key starts afresh.
   *
   * <p>Memory per key: about 150 bytes (cache entry and state), the key string, and 12 bytes per
   * held event plus the event id strings it keeps alive (at most {@code maxEventsPerKey} events):
   * about 570 bytes for a key holding 5 events with short ids (measured by {@code
   * MillionKeysFootprintTest}).
   *
   * @throws NullPointerException if config is null
   * @throws IllegalArgumentException if maximumKeys is not positive
   */
  static ThresholdDetector inProcess(ThresholdConfig config, long maximumKeys) {
    return new EventLogThresholdDetector(Checks.requireNonNull("config", config), maximumKeys);
  }

  /** Records an event timed now, on the configuration's time source. */
  default ThresholdDecision record(String key, String eventId) {
    return record(key, eventId, config().timeSource().nanoTime());
  }

  /**
   * Records an event with its own time, in nanoseconds on the configuration's time base.
   *
   * @throws NullPointerException if the key or event id is null
   * @throws IllegalArgumentException if the key or event id is empty; nothing is recorded
   */
  ThresholdDecision record(String key, String eventId, long eventTimeNanos);

  /** The rule this detector applies. */
  ThresholdConfig config();
}
