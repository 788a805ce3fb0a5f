/**
 * Fleet-wide rolling windows and keyed decisions in Redis (standalone or Cluster), through a
 * Lettuce connection the caller owns.
 *
 * <p>Front door: {@link io.ringtail.redis.RedisBackend}, which builds {@link
 * io.ringtail.redis.RedisRollingWindow}s (an {@link io.ringtail.RollingWindow} whose raw samples
 * live in two sorted sets kept in sync by one Lua script: exact count, sum, min, max and
 * nearest-rank percentiles, for modest rates), {@link io.ringtail.redis.RedisHistogramWindow}s
 * (local recording, one merged histogram per bucket in Redis: any rate, within the configured
 * precision, buckets spread over a cluster's hash slots) and the Redis implementations of {@link
 * io.ringtail.decision.ThresholdDetector}, {@link io.ringtail.decision.RateLimiter} and {@link
 * io.ringtail.decision.SumCap}, with the same semantics as the in-process ones.
 *
 * <p>Every operation is one atomic script: run by EVALSHA (re-sent with EVAL on NOSCRIPT), or for
 * the rate limiters and the sum cap a function of one library run by FCALL (the library loaded
 * where it is missing); every key of one raw window, one histogram bucket or one decision key
 * shares a hash tag; every write refreshes a TTL just past the window. Calls are bounded by a
 * timeout and guarded by a circuit breaker: recording buffers and replays idempotently, decisions
 * answer by an {@link io.ringtail.redis.OutagePolicy} (a decision script that reaches Redis after
 * its caller was answered changes nothing), errors retrying cannot fix throw {@link
 * io.ringtail.redis.RedisRejectedException} at once, and what could not be kept is counted ({@link
 * io.ringtail.redis.RedisWindowStats}, {@link io.ringtail.redis.DecisionOutageStats}). No thread is
 * started.
 */
package io.ringtail.redis;
