package io.ringtail.redis;

/**
 * What the decisions of one {@link RedisBackend} did while Redis could not answer: an immutable,
 * thread-safe point-in-time copy of its counters.
 *
 * @param answeredByPolicy decisions answered by the {@link OutagePolicy} instead of Redis
 * @param eventsBuffered threshold-detector events waiting to be replayed, now
 * @param eventsReplayed threshold-detector events replayed into Redis after it came back
 * @param eventsDropped threshold-detector events lost because a detector's buffer was full
 */
public record DecisionOutageStats(
    long answeredByPolicy, long eventsBuffered, long eventsReplayed, long eventsDropped) {}
