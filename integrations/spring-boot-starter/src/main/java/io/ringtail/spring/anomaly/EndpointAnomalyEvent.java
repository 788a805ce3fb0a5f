package io.ringtail.spring.anomaly;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An endpoint's measure fired or resolved, as {@link EndpointAnomalies} publishes it: its rule's
 * core {@link io.ringtail.alert.AlertEvent} told in the endpoint's terms, as a Spring application
 * event (listen with {@code @EventListener(EndpointAnomalyEvent.class)}) and one log line. With
 * fleet-wide windows only the instance that paged the fire publishes it, and its resolve.
 * Immutable.
 *
 * @param type fired or resolved
 * @param observation the observation's name ({@code http.server.requests})
 * @param endpoint the endpoint's key values ({@code method}, {@code uri})
 * @param measure what fired
 * @param score the detector's score at this evaluation, 0 to 1
 * @param value the measure at this evaluation (P95 in the window's units, nanoseconds for latency;
 *     a ratio; requests per second)
 * @param baseline the measure's usual value before the fire (an exponentially weighted mean)
 */
public record EndpointAnomalyEvent(
    Type type,
    String observation,
    Map<String, String> endpoint,
    EndpointAnomalies.Measure measure,
    double score,
    double value,
    double baseline) {

  /** What happened. */
  public enum Type {
    /** The detector scored the measure at or above the alarm level. */
    FIRED,
    /** The measure came back at least half-way to its baseline. */
    RESOLVED
  }

  /** Copies the endpoint's key values. */
  public EndpointAnomalyEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(observation, "observation");
    endpoint = Collections.unmodifiableMap(new LinkedHashMap<>(endpoint));
    Objects.requireNonNull(measure, "measure");
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "Anomaly %s: %s %s %s = %s (usual %s, score %.3f)",
        type,
        observation,
        endpoint,
        measure.label(),
        measure.format(value),
        measure.format(baseline),
        score);
  }
}
