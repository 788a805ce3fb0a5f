package io.ringtail.redis;

/**
 * What became of the samples one process recorded into a {@link RedisHistogramWindow}: an immutable
 * point-in-time copy of its counters. Samples (accepted and rejected alike) are {@link #published},
 * still {@link #pendingSamples pending}, {@link #expired} or {@link #dropped}; none is lost
 * silently.
 *
 * @param published samples Redis confirmed it holds (each counted once, retries included)
 * @param publishCalls publication script calls answered by Redis
 * @param retriedDuplicates calls Redis answered "already applied": a retry of a delta whose first
 *     call succeeded although its answer was lost (not counted again)
 * @param failedCalls publication calls that failed, timed out or were refused by the breaker (their
 *     deltas are kept and sent again)
 * @param pendingSamples samples recorded but not yet confirmed by Redis, now
 * @param pendingBuckets buckets holding such samples, now
 * @param expired samples whose bucket left the window before Redis confirmed them
 * @param dropped samples discarded because more than {@code maxPendingBuckets} buckets waited
 * @param scriptReloads NOSCRIPT recoveries by this window's backend
 */
public record RedisHistogramWindowStats(
    long published,
    long publishCalls,
    long retriedDuplicates,
    long failedCalls,
    long pendingSamples,
    long pendingBuckets,
    long expired,
    long dropped,
    long scriptReloads) {}
