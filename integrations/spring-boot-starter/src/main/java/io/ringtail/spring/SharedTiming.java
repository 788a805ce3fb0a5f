package io.ringtail.spring;

import io.micrometer.observation.Observation;
import io.ringtail.TimeSource;
import java.util.Map;
import java.util.Set;

/**
 * A recording that shares the observation windows' timing of a request ({@link ObservedWindows}): a
 * bean of this type on the windows' clock is offered the windows' observations when they are built;
 * if it takes them, it is asked once per key of an observation (its low-cardinality key values, the
 * ignored ones left out) for what records that key's requests, and that is called with each
 * request's duration, measured once by the windows. A request then costs one clock reading and one
 * key lookup, whatever records it. The starter's service levels ({@code ringtail.slo.*}) share this
 * way.
 *
 * <p>Implementations are thread-safe; {@link KeyRecording#record} runs on the request's thread and
 * must neither block nor throw.
 */
public interface SharedTiming {
  /** The clock the durations must be measured on; the windows share only their own. */
  TimeSource timeSource();

  /**
   * Offered the windows' {@code observations}, whose keys leave out the key values named in {@code
   * ignored}: whether this takes them, and is from now on called with every request it records (so
   * that it stops timing them itself).
   */
  boolean share(Set<String> observations, Set<String> ignored);

  /**
   * What records the requests of {@code observation} with these key values; null if none. Called
   * once per key, on the request thread of its first request.
   */
  KeyRecording recordingOf(String observation, Map<String, String> keyValues);

  /** Records the requests of one key. */
  @FunctionalInterface
  interface KeyRecording {
    /** One request of the key: its context, its duration and the time it stopped. */
    void record(Observation.Context context, long durationNanos, long nowNanos);
  }
}
