/**
 * Streaming anomaly detectors: one value in (a window's measure at each evaluation), a score in [0,
 * 1] out. Each {@link io.ringtail.anomaly.AnomalyDetector} keeps constant state (1.5 KiB at the
 * defaults, at most 2 KiB), allocates nothing per value and starts no thread; {@link
 * io.ringtail.anomaly.AnomalyDetectorConfig} is the front door. {@code alert.AlertRule.anomaly}
 * hooks one onto a window.
 */
package io.ringtail.anomaly;
