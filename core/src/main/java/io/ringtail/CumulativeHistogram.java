package io.ringtail;

/**
 * Everything a window has taken in since it was created, slot by slot: the counts behind a
 * histogram a metrics backend can {@code rate()} and add across processes (Prometheus's classic and
 * native histograms, OpenTelemetry's exponential histogram). Read with {@link
 * RollingWindow#cumulativeHistogram()}.
 *
 * <p>Its slots are the window's: HdrHistogram's layout at the window's significant digits, each
 * slot the values from {@code lowestValue} to {@code highestValue} inclusive. Counts only grow
 * while the window lives, and a later read includes every sample an earlier one did.
 *
 * <p>Immutable and thread-safe.
 */
public final class CumulativeHistogram {

  /** Receives one non-empty slot. */
  @FunctionalInterface
  public interface SlotConsumer {
    /**
     * One slot: the values it covers, {@code lowestValue} to {@code highestValue} inclusive, and
     * how many samples fell in it.
     */
    void accept(long lowestValue, long highestValue, long count);
  }

  private final HistogramSnapshot counts;
  private final WindowTotals totals;
  private final int significantDigits;
  private final long startNanos;
  private final long endNanos;

  /** Takes the slots' counts from {@code counts}; its sum is not read (it could overflow). */
  CumulativeHistogram(
      HistogramSnapshot counts,
      WindowTotals totals,
      int significantDigits,
      long startNanos,
      long endNanos) {
    this.counts = counts;
    this.totals = totals;
    this.significantDigits = significantDigits;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
  }

  /** The slots' counts (their sum field is not meaningful). */
  HistogramSnapshot counts() {
    return counts;
  }

  /** Samples accepted since creation, rejected ones, and their sum (see {@link WindowTotals}). */
  public WindowTotals totals() {
    return totals;
  }

  /** Samples accepted since creation: the sum of the slots' counts. */
  public long count() {
    return totals.count();
  }

  /** The window's significant decimal digits: each slot spans at most 10^-digits of its values. */
  public int significantDigits() {
    return significantDigits;
  }

  /** When the window was created (its first bucket's start), in the window's time base. */
  public long startNanos() {
    return startNanos;
  }

  /** When this was read, in the window's time base. */
  public long endNanos() {
    return endNanos;
  }

  /** Calls {@code action} for each slot that holds samples, in ascending order of value. */
  public void forEachSlot(SlotConsumer action) {
    BucketLayout layout = counts.layout();
    for (int i = 0, n = counts.entries(); i < n; i++) {
      long c = counts.countAt(i);
      if (c != 0) {
        int slot = counts.slotAt(i);
        action.accept(layout.valueAt(slot), layout.valueAt(slot + 1) - 1, c);
      }
    }
  }

  /**
   * The counts in base-2 exponential buckets at {@code scale}, each slot's values multiplied by
   * {@code unit} first (1e-9 for nanoseconds exported in seconds); see {@link ExponentialBuckets}
   * for where a slot lands.
   *
   * @throws IllegalArgumentException if scale is outside -10..20, or unit not positive and finite
   */
  public ExponentialBuckets exponentialBuckets(int scale, double unit) {
    return ExponentialBuckets.of(this, scale, unit);
  }

  @Override
  public String toString() {
    return "CumulativeHistogram[count="
        + totals.count()
        + ", sum="
        + totals.sum()
        + ", rejected="
        + totals.rejected()
        + ", slots="
        + counts.entries()
        + "]";
  }
}
