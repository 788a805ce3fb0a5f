package io.ringtail;

/**
 * The exact fields of a {@link HistogramSnapshot} beside its slot counts: the sum, min and max of
 * its samples, the samples it rejected, the interval it covers, and the window's totals (null when
 * it carries none). What every way of building a snapshot passes along as it is.
 */
record SnapshotFields(
    long sum,
    long min,
    long max,
    long rejected,
    long startNanos,
    long endNanos,
    WindowTotals totals) {

  /**
   * The fields of two snapshots' union: sums and rejected counts add, min and max combine, the
   * interval spans both, and totals add when both carry them.
   */
  SnapshotFields plus(SnapshotFields o) {
    return new SnapshotFields(
        sum + o.sum,
        Math.min(min, o.min),
        Math.max(max, o.max),
        rejected + o.rejected,
        Math.min(startNanos, o.startNanos),
        Math.max(endNanos, o.endNanos),
        totals == null || o.totals == null ? null : totals.plus(o.totals));
  }
}
