/**
 * The contracts every Ringtail implementation must pass, and the exact reference models they check
 * against.
 *
 * <p>A new {@link io.ringtail.RollingWindow} extends {@link
 * io.ringtail.testkit.RollingWindowContract} and builds its window in {@code newWindow}; a new rate
 * limiter, threshold detector or sum cap extends {@link io.ringtail.testkit.RateLimiterContract},
 * {@link io.ringtail.testkit.ThresholdDetectorContract} or {@link
 * io.ringtail.testkit.SumCapContract}. Every test then runs against it with time injected through a
 * {@link io.ringtail.ManualTimeSource}. {@link io.ringtail.testkit.ExactWindowModel} and {@link
 * io.ringtail.testkit.ExactDecisionModels} keep every sample or event and answer by brute force;
 * {@link io.ringtail.testkit.Races} starts threads together for stress tests. A binding to a
 * metrics system extends {@link io.ringtail.testkit.BindingConventionsContract}, which checks that
 * it follows {@link io.ringtail.WindowConventions} as the others do.
 */
package io.ringtail.testkit;
