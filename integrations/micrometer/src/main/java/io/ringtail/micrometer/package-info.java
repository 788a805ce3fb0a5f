/**
 * Binds rolling windows to Micrometer: {@link io.ringtail.micrometer.WindowMetrics} for one window,
 * {@link io.ringtail.micrometer.KeyedWindowMetrics} for a keyed collection.
 *
 * <p>This is the only package that uses Micrometer. {@code micrometer-core} is an optional
 * dependency of Ringtail core: add it to use this package; the rest of Ringtail runs without it.
 */
package io.ringtail.micrometer;
