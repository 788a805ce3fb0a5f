/**
 * Keyed windows: a bounded rolling window per entity (per endpoint, per client, per tool), built
 * with {@link io.ringtail.keyed.KeyedWindows#builder}. Keys are held in a Caffeine cache, bounded
 * by count and dropped once idle for longer than their window.
 *
 * <p>Decisions made over per-key windows (thresholds, rate limits, sum caps) live in {@link
 * io.ringtail.decision}.
 */
package io.ringtail.keyed;
