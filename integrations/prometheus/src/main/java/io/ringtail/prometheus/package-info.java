/**
 * Prometheus histograms of Ringtail windows, and Prometheus rules of service levels: {@link
 * io.ringtail.prometheus.WindowHistograms} exports each window's distribution since creation as
 * classic and native histograms, so Prometheus computes the fleet's percentiles over any range;
 * {@link io.ringtail.prometheus.SloRules} generates the recording and alerting rules that compute a
 * service level's SLIs, burn rates and alerts in Prometheus from its exported counters.
 */
package io.ringtail.prometheus;
