package io.ringtail.opentelemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.sdk.metrics.data.DoubleExemplarData;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramBuckets;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramPointData;
import io.ringtail.CumulativeHistogram;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ExponentialBuckets;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link WindowHistogramProducer} turns a window's cumulative histogram into one exponential
 * histogram point: its buckets at the point's scale, its sum and its exemplars (on the wall clock),
 * every value multiplied by the unit's scale. Immutable and thread-safe.
 */
final class ExponentialPoints {
  private final double unitScale;

  /** Points whose values are the windows' values times {@code unitScale}. */
  ExponentialPoints(double unitScale) {
    this.unitScale = unitScale;
  }

  /**
   * The point of {@code h} at {@code scale}, from {@code startEpochNanos} to {@code now}, with
   * {@code exemplars} (null: none).
   */
  ExponentialHistogramPointData point(
      CumulativeHistogram h,
      int scale,
      long startEpochNanos,
      long now,
      Attributes attributes,
      ExemplarReservoir exemplars) {
    ExponentialBuckets b = h.exponentialBuckets(scale, unitScale);
    List<Long> counts = new ArrayList<>(b.length());
    for (int i = 0; i < b.length(); i++) {
      counts.add(b.countAt(i));
    }
    return ExponentialHistogramPointData.create(
        scale,
        h.totals().sum() * unitScale,
        b.zeroCount(),
        false,
        0.0,
        false,
        0.0,
        ExponentialHistogramBuckets.create(scale, b.offset(), counts),
        ExponentialHistogramBuckets.create(scale, 0, List.of()),
        Math.min(startEpochNanos, now),
        now,
        attributes,
        exemplars == null ? List.of() : exemplarsOf(exemplars, h, now));
  }

  /**
   * The reservoir's exemplars, each with its trace and span and its time on the wall clock (the
   * reservoir reads the window's time source).
   */
  private List<DoubleExemplarData> exemplarsOf(
      ExemplarReservoir exemplars, CumulativeHistogram h, long now) {
    List<DoubleExemplarData> out = new ArrayList<>();
    for (ExemplarReservoir.Exemplar e : exemplars.exemplars()) {
      SpanContext span =
          SpanContext.create(
              e.traceId(),
              e.spanId() == null ? SpanId.getInvalid() : e.spanId(),
              TraceFlags.getSampled(),
              TraceState.getDefault());
      long epochNanos = now - Math.max(0L, h.endNanos() - e.timeNanos());
      out.add(
          DoubleExemplarData.create(Attributes.empty(), epochNanos, span, e.value() * unitScale));
    }
    return out;
  }
}
