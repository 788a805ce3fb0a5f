/**
 * Ringtail's meters in Spring Boot and the rolling windows of the application's observations: every
 * window bean bound to the {@code MeterRegistry} ({@link
 * io.ringtail.spring.observation.RingtailMeterBinder}) and its histograms to Prometheus ({@link
 * io.ringtail.spring.observation.RingtailHistograms}), and every observation named by {@code
 * ringtail.observations.names} timed into {@link
 * io.ringtail.spring.observation.ObservationWindows}, fleet-wide when there is a Redis backend.
 * Configured by {@link io.ringtail.spring.observation.RingtailObservationAutoConfiguration}.
 */
package io.ringtail.spring.observation;
