/**
 * Binds rolling windows to Micrometer: {@link io.ringtail.micrometer.WindowMetrics} for one window,
 * {@link io.ringtail.micrometer.KeyedWindowMetrics} for a keyed collection; and decisions' counts
 * ({@link io.ringtail.micrometer.DecisionMetrics}) and service levels ({@link
 * io.ringtail.micrometer.SloMetrics}).
 *
 * <p>This is the only package that uses Micrometer. {@code micrometer-core} is an optional
 * dependency of Ringtail core: add it to use this package; the rest of Ringtail runs without it.
 */
package io.ringtail.micrometer;
