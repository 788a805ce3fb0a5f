/**
 * Binds rolling windows to OpenTelemetry: {@link io.ringtail.opentelemetry.WindowTelemetry} reports
 * a window's (or each key's) statistics and totals through one batch callback per binding. Depends
 * on {@code opentelemetry-api} only; the application brings the SDK.
 */
package io.ringtail.opentelemetry;
