package io.ringtail.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoubleExemplarData;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Exemplars from the current span, exported on the window's exponential histogram point. */
class SpanExemplarsTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

  private static Span span(String spanId, TraceFlags flags) {
    return Span.wrap(SpanContext.create(TRACE, spanId, flags, TraceState.getDefault()));
  }

  @Test
  @SuppressWarnings("try") // the scopes are only closed
  void samplesRecordedInASampledSpan_becomeTheExportedExemplars() {
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow window =
        RollingWindow.create(WindowConfig.builder().cumulativeHistogram(true).build(), time);
    ExemplarReservoir exemplars = ExemplarReservoir.create(Duration.ofMinutes(1), time);
    try (Scope ignored = span("00f067aa0ba902b7", TraceFlags.getSampled()).makeCurrent()) {
      SpanExemplars.record(window, exemplars, 3_000_000);
      SpanExemplars.record(window, exemplars, 250_000_000);
    }
    try (Scope ignored = span("00f067aa0ba902b8", TraceFlags.getDefault()).makeCurrent()) {
      SpanExemplars.record(window, exemplars, 900_000_000); // not sampled: recorded only
    }
    SpanExemplars.record(window, exemplars, 800_000_000); // no span: recorded only
    assertThat(exemplars.exemplars())
        .extracting(ExemplarReservoir.Exemplar::value)
        .containsExactly(3_000_000L, 250_000_000L);

    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (SdkMeterProvider provider =
        SdkMeterProvider.builder()
            .registerMetricReader(reader)
            .registerMetricProducer(
                WindowHistogramProducer.builder().window("checkout", window, exemplars).build())
            .build()) {
      MetricData metric =
          reader.collectAllMetrics().stream()
              .filter(m -> m.getName().equals(WindowHistogramProducer.WINDOW_METRIC))
              .findFirst()
              .orElseThrow();
      ExponentialHistogramPointData point =
          metric.getExponentialHistogramData().getPoints().iterator().next();
      assertThat(point.getCount()).isEqualTo(4);
      List<DoubleExemplarData> exported = point.getExemplars();
      assertThat(exported).extracting(DoubleExemplarData::getValue).containsExactly(0.003, 0.25);
      assertThat(exported)
          .allSatisfy(
              e -> {
                assertThat(e.getSpanContext().getTraceId()).isEqualTo(TRACE);
                assertThat(e.getSpanContext().getSpanId()).isEqualTo("00f067aa0ba902b7");
                assertThat(e.getEpochNanos()).isPositive();
              });
    }
  }
}
