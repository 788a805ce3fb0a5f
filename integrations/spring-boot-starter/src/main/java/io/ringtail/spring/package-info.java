/**
 * Spring Boot auto-configuration for Ringtail, one package per job ({@code .observation}, {@code
 * .redis}, {@code .actuate}, {@code .anomaly}, {@code .slo}, the limits). This package holds what
 * they share: the settings {@code ringtail.*} ({@link io.ringtail.spring.RingtailProperties}), the
 * window conventions and the evaluation of {@code AlertRule} beans ({@link
 * io.ringtail.spring.RingtailAutoConfiguration}), and the interfaces through which one part serves
 * another without importing it ({@link io.ringtail.spring.ObservedWindows}, {@link
 * io.ringtail.spring.SharedTiming}, {@link io.ringtail.spring.RingtailEndpointSection}).
 */
package io.ringtail.spring;
