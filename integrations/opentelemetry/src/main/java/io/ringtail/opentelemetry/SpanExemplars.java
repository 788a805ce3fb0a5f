package io.ringtail.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.ringtail.ExemplarReservoir;
import io.ringtail.RollingWindow;
import java.util.Objects;

/**
 * Exemplars from the current OpenTelemetry span: {@code SpanExemplars.record(window, exemplars,
 * nanos)} records a sample and offers it, with the trace and span of {@link Span#current()}, to an
 * {@link ExemplarReservoir} whose exemplars the histogram exports attach ({@link
 * WindowHistogramProducer}, and {@code ringtail-prometheus}'s {@code WindowHistograms}).
 *
 * <p>A sample recorded outside a sampled span is recorded and not offered: an exemplar without a
 * stored trace leads nowhere. Reading the current span is a thread-local read.
 */
public final class SpanExemplars {
  private SpanExemplars() {}

  /** Offers {@code value} with the current span's trace, if it is valid and sampled. */
  public static void offer(ExemplarReservoir exemplars, long value) {
    Objects.requireNonNull(exemplars, "exemplars");
    SpanContext span = Span.current().getSpanContext();
    if (span.isValid() && span.isSampled()) {
      exemplars.offer(value, span.getTraceId(), span.getSpanId());
    }
  }

  /** Records {@code value} into {@code window} and offers it with the current span's trace. */
  public static void record(RollingWindow window, ExemplarReservoir exemplars, long value) {
    window.record(value);
    offer(exemplars, value);
  }
}
