package io.ringtail.redis;

/**
 * What became of the samples one process recorded into a {@link RedisRollingWindow}: an immutable,
 * thread-safe point-in-time copy of its counters. Every sample that could not be kept shows up in
 * exactly one of {@link #rejected}, {@link #expired}, {@link #trimmed}, {@link #dropped}, or is
 * still {@link #buffered}.
 *
 * @param recorded samples this process handed to the window
 * @param stored samples Redis added to the window
 * @param duplicates samples Redis already held under the same event id (replays; not re-counted)
 * @param rejected negative samples (and samples whose sum would overflow 64 bits): counted in the
 *     window's {@code rejected()}, not stored
 * @param expired samples that reached Redis already older than the window (for example replayed
 *     after a long outage)
 * @param trimmed oldest samples removed by the cardinality cap ({@value
 *     RedisRollingWindow#CARDINALITY_CAP_WARNING})
 * @param buffered samples waiting in memory for Redis to come back, now
 * @param replayed samples sent again from the buffer
 * @param dropped samples lost because the buffer was full or Redis refused them for good ({@link
 *     RedisRejectedException}: a missing permission, a key of the wrong type)
 * @param failedCalls script calls that failed, timed out or were refused by the breaker
 * @param skewCorrections calls whose client time was replaced by server time by the skew guard
 * @param degradedSnapshots snapshots answered by the local fallback window
 * @param scriptReloads NOSCRIPT recoveries by this window's backend
 */
public record RedisWindowStats(
    long recorded,
    long stored,
    long duplicates,
    long rejected,
    long expired,
    long trimmed,
    long buffered,
    long replayed,
    long dropped,
    long failedCalls,
    long skewCorrections,
    long degradedSnapshots,
    long scriptReloads) {}
