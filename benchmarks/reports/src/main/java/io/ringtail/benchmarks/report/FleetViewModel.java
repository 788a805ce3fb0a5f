package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.Markdown;
import java.util.Map;

/**
 * The cost model of docs/fleet-histogram-window.md, checked against one measured row of {@link
 * FleetViewReport}, then carried to a larger fleet at the row's measured cost per command and bytes
 * per merged bucket. It counts what {@code INFO commandstats} counts: top-level commands and those
 * a script runs.
 *
 * <p>Per publish interval (1 s here) each of {@code P} processes sends one {@code HSET} per group
 * its keys fall in ({@code g} of the 16, {@code 16 (1 - (15/16)^K)} for {@code K} keys on average),
 * a {@code PEXPIRE} per group every quarter window (15 s) and one {@code TIME}. Each group with
 * batches costs its merger six commands ({@code GET}, {@code HGETALL}, two {@code GET}s, {@code
 * MGET}, {@code fleet_merge.lua}), and the script seven more (a {@code GET} and three {@code SET}s,
 * an {@code HDEL}, the lease's {@code GET} and {@code PEXPIRE}) plus one {@code SET} per merged
 * bucket written (the group's keys, {@code K / g}, times two buckets a merge); its two lease
 * renewals three each. Each read is one {@code MGET} that returns, per key, the buckets merged
 * since the last read and those up to two older ({@code r + 2} buckets when reads are {@code r}
 * seconds apart). Lease tries ({@code SET NX}) are left out: while the mergers live they are rare.
 */
final class FleetViewModel {
  static final String HEADER =
      "| row | groups (model / merges measured) | commands/s, model (at the groups measured) /"
          + " measured | read bytes out/s,"
          + " model / measured out | network in/s | Redis CPU per command | 1,000 pods x 500 keys,"
          + " 3 masters: commands/s and CPU per master, read bytes out/s per master |\n"
          + "|---|---:|---:|---:|---:|---:|---|\n";

  private static final int GROUPS = 16;
  private static final double QUARTER_WINDOW_SECONDS = 15;

  private FleetViewModel() {}

  /** Expected groups that {@code keys} keys fall in. */
  static double groups(int keys) {
    return GROUPS * (1 - Math.pow((GROUPS - 1.0) / GROUPS, keys));
  }

  /** Commands per second the model predicts for a fleet whose keys fall in {@code g} groups. */
  static double commands(double processes, int keys, double g, double readEverySeconds) {
    double publishing = processes * (g + g / QUARTER_WINDOW_SECONDS + 1);
    double merging = g * (6 + 7 + 2 * keys / g) + 2 * g * 3;
    double reading = readEverySeconds > 0 ? processes / readEverySeconds : 0;
    return publishing + merging + reading;
  }

  /** Bytes per second the model predicts that reads send out. */
  static double readBytes(
      double processes, int keys, double readEverySeconds, double bytesPerBucket) {
    return readEverySeconds > 0
        ? processes / readEverySeconds * keys * (readEverySeconds + 2) * bytesPerBucket
        : 0;
  }

  /**
   * One markdown row: the model beside what the row measured ({@code commands} from {@code INFO
   * commandstats} over {@code seconds}), and the model at 1,000 pods x 500 keys read every 15 s at
   * the row's CPU per command and bytes per merged bucket ({@code bucketBytes}).
   */
  static String row(
      String name,
      int processes,
      int keys,
      int readEvery,
      Map<String, long[]> commands,
      int seconds,
      double cpuPercent,
      double netInPerSecond,
      double netOutPerSecond,
      double bucketBytes) {
    long measured = 0;
    for (Map.Entry<String, long[]> e : commands.entrySet()) {
      if (!e.getKey().startsWith("config") && !e.getKey().startsWith("slowlog")) {
        measured += e.getValue()[0];
      }
    }
    double perSecond = (double) measured / seconds;
    long[] merges = commands.getOrDefault("hgetall", new long[2]);
    double model = commands(processes, keys, groups(keys), readEvery);
    double modelAsMerged = commands(processes, keys, (double) merges[0] / seconds, readEvery);
    double cpuPerCommand = cpuPercent / 100 / perSecond; // core-seconds per command
    double big = commands(1_000, 500, groups(500), 15);
    double bigBytes = readBytes(1_000, 500, 15, bucketBytes);
    StringBuilder out = new StringBuilder();
    Markdown.row(
        out,
        name,
        String.format("%.1f / %.1f", groups(keys), (double) merges[0] / seconds),
        String.format("%,.0f (%,.0f) / %,.0f", model, modelAsMerged, perSecond),
        String.format(
            "%,.0f / %,.0f B", readBytes(processes, keys, readEvery, bucketBytes), netOutPerSecond),
        String.format("%,.0f B", netInPerSecond),
        String.format("%.1f us", cpuPerCommand * 1e6),
        String.format(
            "%,.0f/s and %.1f %% of a core; %,.0f MB/s",
            big / 3, 100 * cpuPerCommand * big / 3, bigBytes / 3 / 1e6));
    return out.toString().stripTrailing();
  }
}
