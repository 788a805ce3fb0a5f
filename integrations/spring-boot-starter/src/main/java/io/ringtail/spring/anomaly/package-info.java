/**
 * Anomaly alerts on every endpoint of the observation windows, by configuration ({@code
 * ringtail.anomaly.*}): {@link io.ringtail.spring.anomaly.EndpointAnomalies} evaluates them and
 * publishes {@link io.ringtail.spring.anomaly.EndpointAnomalyEvent}s, once per endpoint for the
 * fleet when the windows are fleet-wide.
 */
package io.ringtail.spring.anomaly;
