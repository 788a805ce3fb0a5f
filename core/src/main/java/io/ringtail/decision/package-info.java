/**
 * Window decisions: correlation thresholds, sliding-log rate limits and sum caps, each per key.
 *
 * <h2>One API, two backends</h2>
 *
 * {@link io.ringtail.decision.ThresholdDetector}, {@link io.ringtail.decision.RateLimiter} and
 * {@link io.ringtail.decision.SumCap} are interfaces. Their immutable configurations ({@link
 * io.ringtail.decision.ThresholdConfig}, {@link io.ringtail.decision.RateLimitConfig}, {@link
 * io.ringtail.decision.SumCapConfig}) and decisions are shared by every backend: code that decides
 * is written once, and moving from one process to a fleet changes only the line that builds the
 * decision (an {@code inProcess} factory here, a Redis factory in the Redis module).
 *
 * <h2>Time</h2>
 *
 * Every time is a {@code long} count of nanoseconds on the decision's <em>time base</em>: the
 * {@link io.ringtail.TimeSource} in its configuration. Methods without a time argument read that
 * source; methods with one take a reading the caller made on the same base (for events, the event's
 * own time). Only differences between times matter, so any origin works, but one decision must see
 * one base: a fleet sharing state needs a base every member agrees on (for example epoch
 * nanoseconds), whereas {@link io.ringtail.TimeSource#system()} is per process.
 *
 * <h2>Window</h2>
 *
 * A window of length {@code W} ending at time {@code t} is the half-open interval {@code (t - W,
 * t]}: something that happened at time {@code s} counts until, and not at, {@code s + W}.
 * Consequently a retry-after of {@code d} means a request at exactly {@code t + d} succeeds.
 *
 * <h2>Atomicity</h2>
 *
 * Each decision is atomic per key: concurrent decisions for one key behave as if made one at a time
 * in some order, so a limit is never over-admitted and nothing is counted twice or lost.
 *
 * <h2>Bad input</h2>
 *
 * A null argument throws {@link java.lang.NullPointerException} naming the parameter; an empty key,
 * a negative amount, a non-positive limit or window throw {@link
 * java.lang.IllegalArgumentException} naming the parameter and the value, before any state is
 * touched.
 */
package io.ringtail.decision;
