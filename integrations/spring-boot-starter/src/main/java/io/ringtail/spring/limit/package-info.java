/**
 * HTTP limits in Spring Boot, by configuration ({@code ringtail.limits.<name>.*}) or on a handler
 * method ({@link io.ringtail.spring.limit.RingtailLimit}): one engine behind a Spring MVC filter
 * and a WebFlux filter, deciding in-process or fleet-wide in Redis, answering with the draft's
 * {@code RateLimit} header fields. Its own auto-configuration, {@link
 * io.ringtail.spring.limit.RingtailLimitsAutoConfiguration}.
 */
package io.ringtail.spring.limit;
