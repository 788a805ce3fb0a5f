/**
 * Binds rolling windows to OpenTelemetry: {@link io.ringtail.opentelemetry.WindowTelemetry} reports
 * a window's (or each key's) statistics and totals through one batch callback per binding, and
 * depends on {@code opentelemetry-api} only; {@link
 * io.ringtail.opentelemetry.WindowHistogramProducer} exports each window's distribution since
 * creation as an exponential histogram, an SDK metric producer that needs {@code
 * opentelemetry-sdk-metrics} (an optional dependency: the application brings the SDK).
 */
package io.ringtail.opentelemetry;
