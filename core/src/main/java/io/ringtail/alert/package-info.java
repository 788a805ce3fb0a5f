/**
 * Anomaly-detection hooks over rolling windows: {@link io.ringtail.alert.AlertRule}s (threshold,
 * SLO burn, ratio to a baseline, deviation from a baseline, anomaly score) evaluated by an {@link
 * io.ringtail.alert.AlertMonitor} that tells {@link io.ringtail.alert.AlertListener}s when a rule
 * fires or resolves.
 *
 * <p>No hidden threads: evaluation runs on demand or on an executor the user supplies. Windows know
 * nothing of alerting, so recording costs the same with or without rules. This package does not use
 * Micrometer.
 */
package io.ringtail.alert;
