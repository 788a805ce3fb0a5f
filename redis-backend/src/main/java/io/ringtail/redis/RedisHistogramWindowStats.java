package io.ringtail.redis;

/**
 * What became of the samples one process recorded into a {@link RedisHistogramWindow} or {@link
 * RedisKeyedHistogramWindows}: an immutable point-in-time copy of its counters. Samples (accepted
 * and rejected alike) are {@link #published}, still {@link #pendingSamples pending}, {@link
 * #expired} or {@link #dropped}; none is lost silently.
 *
 * <p>Publication is a process's side only: a sample Redis confirmed is in its group's inbox, and
 * the holder of the group's merger lease merges it into the fleet's buckets at its next round (see
 * {@link RedisKeyedHistogramWindows}).
 *
 * @param published samples Redis confirmed it holds (each counted once, retries included)
 * @param publishCalls batches Redis answered: one {@code HSET} of a group's batch into its inbox
 *     (with a {@code PEXPIRE} of the inbox every quarter window)
 * @param retriedDuplicates batches Redis answered "already there": a retry of a batch whose first
 *     call landed although its answer was lost (its field was written again, not counted again)
 * @param failedCalls batches that failed, timed out or were refused by the breaker (their deltas
 *     are kept and sent again, under the same field)
 * @param pendingSamples samples recorded but not yet confirmed by Redis, now
 * @param pendingBuckets deltas (one key, one bucket) holding such samples, now
 * @param expired samples whose bucket left the window before Redis confirmed them
 * @param dropped samples discarded because more than {@code maxPendingBuckets} buckets waited
 * @param scriptReloads NOSCRIPT recoveries by this window's backend
 * @param publishedBytes bytes of the batches Redis confirmed, each batch once (what this process's
 *     publication adds to the inboxes, and so to what their merger reads)
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
    long scriptReloads,
    long publishedBytes) {}
