/**
 * Service levels declared by configuration in Spring Boot: {@code ringtail.slo.<name>.*} selects
 * requests of an observation ({@code http.server.requests}) by path pattern, method and key values,
 * and declares latency and availability objectives, a compliance period and burn-rate alerts.
 * {@link io.ringtail.spring.slo.ServiceLevels} runs them; fires and resolves are published as
 * {@link io.ringtail.spring.slo.ServiceLevelAlertEvent}s.
 */
package io.ringtail.spring.slo;
