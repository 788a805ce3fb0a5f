/**
 * Prometheus histograms of Ringtail windows: {@link io.ringtail.prometheus.WindowHistograms}
 * exports each window's distribution since creation as classic and native histograms, so Prometheus
 * computes the fleet's percentiles over any range.
 */
package io.ringtail.prometheus;
