/**
 * Rolling telemetry windows: what happened in the last N seconds.
 *
 * <h2>Front doors</h2>
 *
 * {@link io.ringtail.RollingWindow#create RollingWindow.create} (one window); in the packages
 * beneath, which build on this one, {@code keyed.KeyedWindows.builder} (a window per key), {@code
 * decision.RateLimiter.inProcess}, {@code decision.ThresholdDetector.inProcess} and {@code
 * decision.SumCap.inProcess} (decisions per key), {@code alert.AlertMonitor.create} (alert rules),
 * {@code slo.ServiceLevelConfig.builder} (service levels); in other modules, {@code
 * WindowMetrics.monitor} (Micrometer) and {@code RedisBackend.builder} (Redis).
 *
 * <h2>House rules</h2>
 *
 * <ul>
 *   <li>Time is read only through a {@link io.ringtail.TimeSource}; the library starts no thread of
 *       its own.
 *   <li>Every class says in its documentation whether it is thread-safe.
 *   <li>Bad arguments fail at once, the same way everywhere: a null throws {@link
 *       java.lang.NullPointerException} whose message is the parameter's name; a bad value throws
 *       {@link java.lang.IllegalArgumentException} reading {@code "<parameter> must be ..., but was
 *       <value>"}. A builder's setters only store: {@code build()} checks every value and may be
 *       called again. Durations must fit in a {@code long} of nanoseconds (about 292 years). Checks
 *       never take time that grows with a value's size (a decimal's exponent, a duration's length).
 *       Recording never throws for a bad sample: it counts it as rejected.
 * </ul>
 */
package io.ringtail;
