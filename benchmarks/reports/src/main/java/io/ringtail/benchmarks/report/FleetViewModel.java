package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.Markdown;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cost model of docs/fleet-histogram-window.md, checked against the measured rows of {@link
 * FleetViewReport}, then carried to 1,000 pods x 500 keys on 3 masters. It counts what {@code INFO
 * commandstats} counts: top-level commands and those a script runs.
 *
 * <p>Commands, per publish interval (1 s here): each of {@code P} processes sends one {@code HSET}
 * per group its keys fall in ({@code g} of the 16, {@code 16 (1 - (15/16)^K)} for {@code K} keys on
 * average), a {@code PEXPIRE} per group every quarter window (15 s) and one {@code TIME}. Each
 * group with batches costs its merger five commands ({@code GET}, {@code HGETALL}, two {@code
 * GET}s, the commit's {@code EVALSHA}; its view of the group, synced by its own commits, needs no
 * read of the buckets it adds to) and the commit eight more ({@code GET}, four {@code SET}s of
 * stamp, table, head and summary, {@code HDEL}, the lease's {@code GET} and {@code PEXPIRE}) plus
 * one {@code SET} per merged bucket written (the group's keys, {@code K / g}, times two buckets a
 * merge); its two lease renewals three each. A read of summaries is one {@code MGET} (on a cluster
 * one command per group: 16); a read of distributions one {@code MGET} of heads and buckets.
 *
 * <p>I/O events (the server's socket reads and writes, {@code INFO stats}): per interval a read and
 * a write per process for its round (its commands reach the server in one write), per read, and per
 * group five for its merger's round trips and lease renewals.
 *
 * <p>Bytes: the batches ({@code B}, what the processes' stats say Redis confirmed) come in once and
 * go out once, in the merges' {@code HGETALL}; a read of summaries returns about {@code s} bytes
 * per key (the groups' summaries, measured by {@code STRLEN}), a read of distributions the buckets
 * merged since the last read and two more ({@code r + 2} per key) of {@code b} bytes each; every
 * command adds its framing, {@code f} bytes in and {@code h} out, fitted over the rows. Redis CPU
 * is fitted over the rows as {@code a x commands + e x events + c x bytes in and out}; each row is
 * checked against every part of the model.
 */
final class FleetViewModel {
  private static final int GROUPS = 16;
  private static final double QUARTER_WINDOW_SECONDS = 15;

  /** The big fleet: pods, keys, seconds between a pod's reads, masters. */
  static final int FLEET_PODS = 1_000;

  static final int FLEET_KEYS = 500;
  static final double FLEET_READ_EVERY = 15;
  static final int MASTERS = 3;

  /** One measured row and what the model needs of it. */
  record Row(
      String name,
      int processes,
      int keys,
      int readEvery,
      boolean distributions,
      double commandsPerSecond,
      double groupsMerged,
      double cpuPercent,
      double inPerSecond,
      double outPerSecond,
      double eventsPerSecond,
      double batchBytesPerSecond,
      double bucketBytes,
      double summaryBytesPerKey) {

    double modelCommands(double groups) {
      return commands(processes, keys, groups, readEvery, 1);
    }

    double reads() {
      return readBytes(processes, keys, readEvery, distributions, summaryBytesPerKey, bucketBytes);
    }
  }

  private final List<Row> rows = new ArrayList<>();

  private FleetViewModel() {}

  static FleetViewModel create() {
    return new FleetViewModel();
  }

  /** Expected groups that {@code keys} keys fall in. */
  static double groups(int keys) {
    return GROUPS * (1 - Math.pow((GROUPS - 1.0) / GROUPS, keys));
  }

  /**
   * Commands per second for {@code processes} publishing {@code keys} keys that fall in {@code g}
   * groups, each reading every {@code readEverySeconds} (0: never) with {@code commandsPerRead}.
   */
  static double commands(
      double processes, int keys, double g, double readEverySeconds, double commandsPerRead) {
    double publishing = processes * (g + g / QUARTER_WINDOW_SECONDS + 1);
    double merging = g * (5 + 8 + 2.0 * keys / g) + 2 * g * 3;
    double reading = readEverySeconds > 0 ? processes / readEverySeconds * commandsPerRead : 0;
    return publishing + merging + reading;
  }

  /** Bytes per second that reads send out. */
  static double readBytes(
      double processes,
      int keys,
      double readEverySeconds,
      boolean distributions,
      double summaryBytesPerKey,
      double bucketBytes) {
    if (readEverySeconds <= 0) {
      return 0;
    }
    double perKey = distributions ? (readEverySeconds + 2) * bucketBytes : summaryBytesPerKey;
    return processes / readEverySeconds * keys * perKey;
  }

  /** Adds a measured row ({@code commands} from {@code INFO commandstats} over {@code seconds}). */
  void add(
      String name,
      int processes,
      int keys,
      int readEvery,
      boolean distributions,
      Map<String, long[]> commands,
      int seconds,
      double cpuPercent,
      double inPerSecond,
      double outPerSecond,
      double eventsPerSecond,
      double batchBytesPerSecond,
      double bucketBytes,
      double summaryBytesPerKey) {
    long measured = 0;
    for (Map.Entry<String, long[]> e : commands.entrySet()) {
      if (!e.getKey().startsWith("config") && !e.getKey().startsWith("slowlog")) {
        measured += e.getValue()[0];
      }
    }
    long[] merges = commands.getOrDefault("hgetall", new long[2]);
    rows.add(
        new Row(
            name,
            processes,
            keys,
            readEvery,
            distributions,
            (double) measured / seconds,
            (double) merges[0] / seconds,
            cpuPercent,
            inPerSecond,
            outPerSecond,
            eventsPerSecond,
            batchBytesPerSecond,
            bucketBytes,
            summaryBytesPerKey));
  }

  /** I/O events per second: a read and a write per round, per read, and five a group. */
  static double events(double processes, double g, double readEverySeconds) {
    double reads = readEverySeconds > 0 ? processes / readEverySeconds : 0;
    return 2 * (processes + reads + 5 * g);
  }

  /** Framing bytes per command, in and out: least squares of the bytes beyond batches and reads. */
  double[] framing() {
    double cc = 0;
    double in = 0;
    double out = 0;
    for (Row r : rows) {
      double c = r.commandsPerSecond();
      cc += c * c;
      in += c * (r.inPerSecond() - r.batchBytesPerSecond());
      out += c * (r.outPerSecond() - r.batchBytesPerSecond() - r.reads());
    }
    return cc == 0 ? new double[2] : new double[] {in / cc, out / cc};
  }

  /**
   * The CPU model's coefficients, fitted by least squares over the rows: core-seconds per command,
   * per I/O event and per byte in or out.
   */
  double[] fit() {
    double[][] m = new double[3][4];
    for (Row r : rows) {
      double[] x = {r.commandsPerSecond(), r.eventsPerSecond(), r.inPerSecond() + r.outPerSecond()};
      double z = r.cpuPercent() / 100;
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          m[i][j] += x[i] * x[j];
        }
        m[i][3] += x[i] * z;
      }
    }
    // Gaussian elimination with partial pivoting on the normal equations
    for (int col = 0; col < 3; col++) {
      int pivot = col;
      for (int r = col + 1; r < 3; r++) {
        if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
          pivot = r;
        }
      }
      double[] t = m[col];
      m[col] = m[pivot];
      m[pivot] = t;
      if (Math.abs(m[col][col]) < 1e-30) {
        return new double[3];
      }
      for (int r = 0; r < 3; r++) {
        if (r != col) {
          double f = m[r][col] / m[col][col];
          for (int c = col; c < 4; c++) {
            m[r][c] -= f * m[col][c];
          }
        }
      }
    }
    return new double[] {m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]};
  }

  /** The rows against the model, and the big fleet per master, as markdown. */
  String markdown() {
    double[] fit = fit();
    double[] framing = framing();
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "Fitted over the rows: Redis CPU %.2f us per command, %.2f us per I/O event and %.2f ns"
                + " per byte in or out; framing %.0f bytes in and %.0f out per command.%n%n",
            fit[0] * 1e6, fit[1] * 1e6, fit[2] * 1e9, framing[0], framing[1]));
    out.append(
        "| row | groups (model / merges measured) | commands/s, model (at the groups measured) /"
            + " measured | I/O events/s, model / measured | bytes in/s, model / measured | bytes"
            + " out/s, model / measured | Redis CPU, model / measured |\n"
            + "|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      double commands = r.modelCommands(r.groupsMerged());
      double events = events(r.processes(), r.groupsMerged(), r.readEvery());
      double in = r.batchBytesPerSecond() + framing[0] * commands;
      double outBytes = r.batchBytesPerSecond() + r.reads() + framing[1] * commands;
      double cpu = 100 * (fit[0] * commands + fit[1] * events + fit[2] * (in + outBytes));
      Markdown.row(
          out,
          r.name(),
          String.format("%.1f / %.1f", groups(r.keys()), r.groupsMerged()),
          String.format(
              "%,.0f (%,.0f) / %,.0f %s",
              r.modelCommands(groups(r.keys())),
              commands,
              r.commandsPerSecond(),
              within(commands, r.commandsPerSecond())),
          String.format(
              "%,.0f / %,.0f %s", events, r.eventsPerSecond(), within(events, r.eventsPerSecond())),
          String.format("%,.0f / %,.0f B %s", in, r.inPerSecond(), within(in, r.inPerSecond())),
          String.format(
              "%,.0f / %,.0f B %s", outBytes, r.outPerSecond(), within(outBytes, r.outPerSecond())),
          String.format("%.1f / %.1f %% %s", cpu, r.cpuPercent(), within(cpu, r.cpuPercent())));
    }
    out.append('\n');
    out.append(fleet(fit, framing));
    return out.toString();
  }

  private static String within(double model, double measured) {
    double off = measured == 0 ? 0 : (model - measured) / measured;
    return String.format("(%+.0f %%)", 100 * off);
  }

  /**
   * 1,000 pods x 500 keys on 3 masters, every pod reading every key every 15 s, at the rows' bytes
   * per key (summaries), per merged bucket (distributions: 200 x 20 merges 1,000 samples a key and
   * second, as this fleet does) and per process, key and second of batches (from the row whose
   * processes record the fewest samples per key, closest to this fleet's one a second).
   */
  private String fleet(double[] fit, double[] framing) {
    Row summaries = null;
    Row distributions = null;
    Row batches = null;
    for (Row r : rows) {
      if (r.readEvery() > 0 && !r.distributions() && summaries == null) {
        summaries = r;
      }
      if (r.distributions() && distributions == null) {
        distributions = r;
      }
      if (batches == null || perKeyRate(r) < perKeyRate(batches)) {
        batches = r;
      }
    }
    if (summaries == null || batches == null) {
      return "";
    }
    double g = groups(FLEET_KEYS);
    double batchBytes =
        (double) FLEET_PODS
            * FLEET_KEYS
            * batches.batchBytesPerSecond()
            / (batches.processes() * batches.keys());
    StringBuilder out = new StringBuilder();
    out.append(
        "| 1,000 pods x 500 keys, 3 masters, reads every 15 s, per master | commands/s | I/O"
            + " events/s | read bytes out/s | all bytes out/s | bytes in/s | Redis CPU |\n"
            + "|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : new Row[] {summaries, distributions}) {
      if (r == null) {
        continue;
      }
      // on a cluster a read is one command per group, and reaches every master
      double commands = commands(FLEET_PODS, FLEET_KEYS, g, FLEET_READ_EVERY, GROUPS) / MASTERS;
      double events = 2 * (FLEET_PODS + FLEET_PODS / FLEET_READ_EVERY + 5 * g / MASTERS);
      double reads =
          readBytes(
                  FLEET_PODS,
                  FLEET_KEYS,
                  FLEET_READ_EVERY,
                  r.distributions(),
                  r.summaryBytesPerKey(),
                  r.bucketBytes())
              / MASTERS;
      double in = batchBytes / MASTERS + framing[0] * commands;
      double outBytes = batchBytes / MASTERS + reads + framing[1] * commands;
      double cpu = fit[0] * commands + fit[1] * events + fit[2] * (in + outBytes);
      Markdown.row(
          out,
          r.distributions() ? "reading distributions (before)" : "reading summaries",
          String.format("%,.0f", commands),
          String.format("%,.0f", events),
          String.format("%.1f MB/s", reads / 1e6),
          String.format("%.1f MB/s", outBytes / 1e6),
          String.format("%.1f MB/s", in / 1e6),
          String.format("%.1f %% of a core", 100 * cpu));
    }
    return out.toString();
  }

  /** Samples a process records per key and second in {@code r}. */
  private static double perKeyRate(Row r) {
    return 20_000.0 / r.processes() / r.keys();
  }
}
