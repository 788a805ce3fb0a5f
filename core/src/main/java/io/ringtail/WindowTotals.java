package io.ringtail;

/**
 * What a window has taken in since it was created, as of one snapshot: the monotonic totals behind
 * rate counters ({@code rate(..._total[5m])} in Prometheus), beside the snapshot's rolling
 * statistics.
 *
 * <p>Each total only grows while the window lives, so the difference between two snapshots' totals
 * is what arrived in between, whatever the window length. In-process windows accumulate them when a
 * bucket is sealed (or leaves the window unsealed after an idle gap) and add the live bucket at
 * snapshot time, so recording pays nothing for them; a snapshot's totals therefore include every
 * sample its rolling statistics include, and every earlier one.
 *
 * <p>Immutable and thread-safe.
 *
 * @param count samples accepted since creation
 * @param sum their sum, as a double: exact below 2<sup>53</sup>, within a relative 1e-16 per sealed
 *     bucket above (a long would overflow within hours at high rates of nanosecond latencies)
 * @param rejected samples rejected as out of range since creation
 */
public record WindowTotals(long count, double sum, long rejected) {

  /** The totals of both, as for two windows whose samples are merged. */
  public WindowTotals plus(WindowTotals other) {
    return new WindowTotals(count + other.count, sum + other.sum, rejected + other.rejected);
  }
}
