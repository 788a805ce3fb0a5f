/**
 * Service levels: objectives over a rolling compliance period, their error budgets and burn rates,
 * and the Google SRE workbook's multiwindow, multi-burn-rate alerts.
 *
 * <h2>Front door</h2>
 *
 * {@link io.ringtail.slo.ServiceLevelConfig#builder ServiceLevelConfig.builder} defines one (its
 * {@link io.ringtail.slo.Objective}s, period and {@link io.ringtail.slo.BurnRateAlert}s); {@link
 * io.ringtail.slo.ServiceLevel#inProcess ServiceLevel.inProcess} counts its events in this process;
 * {@link io.ringtail.slo.ServiceLevel#status()} tells where it stands. {@link
 * io.ringtail.slo.ObjectiveStatus#of ObjectiveStatus.of} computes the same figures from counts kept
 * anywhere else.
 *
 * <h2>House rules</h2>
 *
 * <ul>
 *   <li>Each event is judged once, when recorded, against every objective's configured threshold:
 *       good and total counts are exact, never interpolated from histogram buckets.
 *   <li>Recording takes no lock, never waits and allocates nothing: a few atomic adds in the
 *       calling thread's stripe. Time is read through a {@link io.ringtail.TimeSource}; no thread
 *       is started.
 *   <li>An alert's condition is part of the status, a pure function of the counts; nothing here
 *       keeps alert state between statuses.
 * </ul>
 */
package io.ringtail.slo;
