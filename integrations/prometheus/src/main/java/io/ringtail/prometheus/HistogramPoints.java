package io.ringtail.prometheus;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.Exemplar;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.NativeHistogramBuckets;
import io.ringtail.CumulativeHistogram;
import io.ringtail.ExemplarReservoir;
import io.ringtail.ExponentialBuckets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How {@link WindowHistograms} turns a window's cumulative histogram into one Prometheus data
 * point: its classic buckets at the bounds chosen, its native buckets when they are on, its sum and
 * its exemplars, every value multiplied by the unit's scale. Immutable and thread-safe.
 */
final class HistogramPoints {
  /**
   * The native zero bucket's width, Prometheus's default: only exact zeros fall in it here, and a
   * positive width is how a scraper tells a native histogram that holds nothing yet from a classic
   * one.
   */
  private static final double ZERO_THRESHOLD = Math.scalb(1.0, -128);

  private final double[] bounds;
  private final double scale;
  private final boolean nativeHistograms;
  private final Integer nativeSchema;

  /**
   * Points at classic {@code bounds}, {@code scale}, and native buckets if asked (null: schema of
   * the precision).
   */
  HistogramPoints(double[] bounds, double scale, boolean nativeHistograms, Integer nativeSchema) {
    this.bounds = bounds;
    this.scale = scale;
    this.nativeHistograms = nativeHistograms;
    this.nativeSchema = nativeSchema;
  }

  /** The data point of {@code h}, labelled {@code labels}, with {@code exemplars} (null: none). */
  HistogramDataPointSnapshot point(
      CumulativeHistogram h, Labels labels, ExemplarReservoir exemplars) {
    HistogramDataPointSnapshot.Builder point = HistogramDataPointSnapshot.builder().labels(labels);
    point.classicHistogramBuckets(classicBuckets(h));
    if (nativeHistograms) {
      int schema =
          nativeSchema != null ? nativeSchema : ExponentialBuckets.scaleFor(h.significantDigits());
      ExponentialBuckets buckets = h.exponentialBuckets(schema, scale);
      int n = 0;
      for (int i = 0; i < buckets.length(); i++) {
        n += buckets.countAt(i) != 0 ? 1 : 0;
      }
      int[] indexes = new int[n];
      long[] counts = new long[n];
      for (int i = 0, k = 0; i < buckets.length(); i++) {
        if (buckets.countAt(i) != 0) {
          // Prometheus numbers bucket (base^i, base^(i+1)] as i + 1
          indexes[k] = buckets.offset() + i + 1;
          counts[k++] = buckets.countAt(i);
        }
      }
      point
          .nativeSchema(schema)
          .nativeZeroThreshold(ZERO_THRESHOLD)
          .nativeZeroCount(buckets.zeroCount())
          .nativeBucketsForPositiveValues(NativeHistogramBuckets.of(indexes, counts));
    }
    point.sum(h.totals().sum() * scale);
    if (exemplars != null) {
      point.exemplars(exemplarsOf(exemplars.exemplars()));
    }
    return point.build();
  }

  /**
   * The exemplars to export: of those in one classic bucket, only the largest, so the exposition
   * (which shows one per bucket) shows each bucket's slowest recent sample.
   */
  private Exemplars exemplarsOf(List<ExemplarReservoir.Exemplar> ascending) {
    List<Exemplar> kept = new ArrayList<>(ascending.size());
    int lastBucket = -1;
    for (ExemplarReservoir.Exemplar e : ascending) {
      double value = e.value() * scale;
      int bucket = 0;
      while (bucket < bounds.length && bounds[bucket] < value) {
        bucket++;
      }
      if (bucket == lastBucket) {
        kept.remove(kept.size() - 1);
      }
      lastBucket = bucket;
      Exemplar.Builder exemplar = Exemplar.builder().value(value).traceId(e.traceId());
      if (e.spanId() != null) {
        exemplar.spanId(e.spanId());
      }
      kept.add(exemplar.build());
    }
    return Exemplars.of(kept);
  }

  /** Each slot whole into the first bucket whose bound is at or above its highest value. */
  private ClassicHistogramBuckets classicBuckets(CumulativeHistogram h) {
    double[] upper = Arrays.copyOf(bounds, bounds.length + 1);
    upper[bounds.length] = Double.POSITIVE_INFINITY;
    long[] counts = new long[upper.length];
    int[] at = {0};
    h.forEachSlot(
        (lowest, highest, count) -> {
          double v = highest * scale;
          while (upper[at[0]] < v) {
            at[0]++;
          }
          counts[at[0]] += count;
        });
    return ClassicHistogramBuckets.of(upper, counts);
  }
}
