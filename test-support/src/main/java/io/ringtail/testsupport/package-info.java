/**
 * What Ringtail's own tests need beyond Maven: {@link io.ringtail.testsupport.PrometheusServer}, a
 * real Prometheus server on a free loopback port. Not published: modules use it at test scope
 * within the build.
 */
package io.ringtail.testsupport;
