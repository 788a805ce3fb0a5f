package io.ringtail.spring;

/**
 * A section of the {@code ringtail} Actuator endpoint's listing that a part of the starter adds
 * (the declared service levels add {@code serviceLevels}, the anomaly alerts {@code anomalies}):
 * every bean of this type is listed under its name, so the endpoint needs no part's types.
 * Implementations are thread-safe.
 */
public interface RingtailEndpointSection {
  /** The key the section is listed under. */
  String sectionName();

  /** What the section shows now: maps, lists, strings, numbers and booleans (JSON). */
  Object section();
}
