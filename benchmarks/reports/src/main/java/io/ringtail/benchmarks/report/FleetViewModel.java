package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.Markdown;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cost model of docs/fleet-histogram-window.md, checked against the measured keyed rows of
 * {@link FleetViewReport}, then carried to 1,000 pods x 500 keys on 3 masters.
 *
 * <p><b>Commands</b> (what {@code INFO commandstats} counts, script-internal ones included), per
 * publish interval (1 s here): each of {@code P} processes sends one {@code HSET} per group its
 * keys fall in ({@code g} of the 16, {@code 16 (1 - (15/16)^K)} for {@code K} keys on average), a
 * {@code PEXPIRE} per group every quarter window (15 s) and one {@code TIME}. Each group with
 * batches costs its merger five commands ({@code GET}, {@code HGETALL}, two {@code GET}s, the
 * commit's {@code EVALSHA}: its view of the group, synced by its own commits, reads no bucket) and
 * the commit eight more ({@code GET}, {@code SET}s of stamp, table, head and summary, {@code HDEL},
 * the lease's {@code GET} and {@code PEXPIRE}) plus one {@code SET} per merged bucket written (the
 * group's keys {@code K / g} times two buckets a merge); its two lease renewals three each. A read
 * of summaries is one {@code MGET} (on a cluster one command per group: 16); a read of
 * distributions one {@code MGET} of heads and buckets.
 *
 * <p><b>I/O events</b> (the server's socket reads and writes, {@code INFO stats}): about a read and
 * a write per round of a process (a round's commands reach the server in one write) and per read,
 * and some per group merged (its merger's round trips and lease renewals); the two coefficients are
 * fitted over the rows that read summaries.
 *
 * <p><b>Bytes</b>: the batches ({@code B}, the bytes the processes' stats say Redis confirmed) come
 * in once and go out once, in the merges' {@code HGETALL}; a read of summaries returns about {@code
 * s} bytes per key (the groups' summaries, measured by {@code STRLEN}), a read of distributions the
 * buckets merged since the last read and two more ({@code r + 2} per key) of {@code b} bytes each,
 * and sends their names ({@link #BUCKET_KEY_BYTES} each); beyond those, each process and group
 * costs some bytes a second in and out (its {@code HSET}'s key, field and marker, their read back,
 * its row of the merger's table, the replies), and the fleet a few more: {@code in = a + f P g},
 * fitted over the rows that read summaries, and the same out.
 *
 * <p><b>Redis CPU</b> = a base + the commands' own time ({@code INFO commandstats}) + a cost per
 * I/O event, the base and the event cost fitted over the rows (relative errors). Carried to the big
 * fleet, the commands' time is each command type's measured time per call in the row with the most
 * processes, an {@code HSET}'s and an {@code HGETALL}'s scaled by their bytes at 1 ns a byte, and
 * the events are the fitted model's.
 */
final class FleetViewModel {
  private static final int GROUPS = 16;
  private static final double QUARTER_WINDOW_SECONDS = 15;

  static final int FLEET_PODS = 1_000;
  static final int FLEET_KEYS = 500;
  static final double FLEET_READ_EVERY = 15;
  static final int MASTERS = 3;

  /** Copying a byte of a large argument or reply, assumed: about memcpy's cost with parsing. */
  private static final double SECONDS_PER_BYTE = 1e-9;

  /** One measured row and what the model needs of it. */
  record Row(
      String name,
      int processes,
      int keys,
      int readEvery,
      boolean distributions,
      Map<String, long[]> commandStats,
      int seconds,
      double commandsPerSecond,
      double commandSeconds,
      double groupsMerged,
      double cpuPercent,
      double inPerSecond,
      double outPerSecond,
      double eventsPerSecond,
      double batchBytesPerSecond,
      double bucketBytes,
      double summaryBytesPerKey) {

    double modelCommands() {
      return FleetViewModel.commands(processes, keys, groupsMerged, readEvery, 1);
    }

    /** The model's I/O events at coefficients {@code k} (see {@link #eventsFit()}). */
    double modelEvents(double[] k) {
      return events(processes, groupsMerged, readEvery, k);
    }

    /** Rounds and reads a second: what each process's connection wakes the server for. */
    double connectionTurns() {
      return processes + (readEvery > 0 ? (double) processes / readEvery : 0);
    }

    double reads() {
      return readBytes(processes, keys, readEvery, distributions, summaryBytesPerKey, bucketBytes);
    }

    /** Measured time per call of {@code command}, in seconds; 0 if it ran no call. */
    double secondsPerCall(String command) {
      long[] c = commandStats.get(command);
      return c == null || c[0] == 0 ? 0 : c[1] / 1e6 / c[0];
    }

    double callsPerSecond(String command) {
      long[] c = commandStats.get(command);
      return c == null ? 0 : (double) c[0] / seconds;
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

  /**
   * I/O events per second: {@code k[0]} per round or read of a process (a read and a write each,
   * about 2) and {@code k[1]} per group merged (its merger's round trips and lease renewals).
   */
  static double events(double processes, double g, double readEverySeconds, double[] k) {
    double turns = processes + (readEverySeconds > 0 ? processes / readEverySeconds : 0);
    return k[0] * turns + k[1] * g;
  }

  /** The I/O events' coefficients, fitted over the rows that read summaries (relative errors). */
  double[] eventsFit() {
    return fit2(
        rows.stream().filter(r -> !r.distributions()).toList(),
        Row::connectionTurns,
        Row::groupsMerged,
        Row::eventsPerSecond,
        true);
  }

  /**
   * Least squares of {@code y = a x1 + b x2} over {@code rows}, each residual relative to {@code y}
   * when {@code relative}: {a, b}.
   */
  static double[] fit2(
      List<Row> rows,
      java.util.function.ToDoubleFunction<Row> x1,
      java.util.function.ToDoubleFunction<Row> x2,
      java.util.function.ToDoubleFunction<Row> y,
      boolean relative) {
    double s11 = 0;
    double s12 = 0;
    double s22 = 0;
    double s1y = 0;
    double s2y = 0;
    for (Row r : rows) {
      double a = x1.applyAsDouble(r);
      double b = x2.applyAsDouble(r);
      double v = y.applyAsDouble(r);
      double w = relative && v != 0 ? 1 / (v * v) : 1;
      s11 += w * a * a;
      s12 += w * a * b;
      s22 += w * b * b;
      s1y += w * a * v;
      s2y += w * b * v;
    }
    double det = s11 * s22 - s12 * s12;
    if (Math.abs(det) < 1e-30) {
      return new double[] {s11 == 0 ? 0 : s1y / s11, 0};
    }
    return new double[] {(s1y * s22 - s2y * s12) / det, (s11 * s2y - s12 * s1y) / det};
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
    Map<String, long[]> kept = new HashMap<>();
    long calls = 0;
    long usec = 0;
    for (Map.Entry<String, long[]> e : commands.entrySet()) {
      if (!e.getKey().startsWith("config") && !e.getKey().startsWith("slowlog")) {
        kept.put(e.getKey(), e.getValue());
        calls += e.getValue()[0];
        usec += e.getValue()[1];
      }
    }
    long[] merges = kept.getOrDefault("hgetall", new long[2]);
    rows.add(
        new Row(
            name,
            processes,
            keys,
            readEvery,
            distributions,
            kept,
            seconds,
            (double) calls / seconds,
            usec / 1e6 / seconds,
            (double) merges[0] / seconds,
            cpuPercent,
            inPerSecond,
            outPerSecond,
            eventsPerSecond,
            batchBytesPerSecond,
            bucketBytes,
            summaryBytesPerKey));
  }

  /** Bytes a read of distributions sends: the names of the buckets it asks for. */
  static final double BUCKET_KEY_BYTES = 60;

  /** Bytes a read sends in, beyond the per-process share: a distributions read's bucket names. */
  static double readRequestBytes(
      double processes, int keys, double readEverySeconds, boolean distributions) {
    return distributions && readEverySeconds > 0
        ? processes / readEverySeconds * keys * (readEverySeconds + 2) * BUCKET_KEY_BYTES
        : 0;
  }

  /**
   * The bytes beyond the batches and reads, in and out, as {@code a + f x P x g} (processes times
   * groups merged), fitted by least squares over the rows: {a in, f in, a out, f out}.
   */
  double[] framing() {
    double[] in = new double[2];
    double[] out = new double[2];
    fitLine(
        r -> r.processes() * r.groupsMerged(),
        r ->
            r.inPerSecond()
                - r.batchBytesPerSecond()
                - readRequestBytes(r.processes(), r.keys(), r.readEvery(), r.distributions()),
        in);
    fitLine(
        r -> r.processes() * r.groupsMerged(),
        r -> r.outPerSecond() - r.batchBytesPerSecond() - r.reads(),
        out);
    return new double[] {in[0], in[1], out[0], out[1]};
  }

  /** Least squares of {@code y = a + b x} over the rows that read summaries, into {@code ab}. */
  private void fitLine(
      java.util.function.ToDoubleFunction<Row> xOf,
      java.util.function.ToDoubleFunction<Row> yOf,
      double[] ab) {
    fitLine(xOf, yOf, ab, false);
  }

  /** Least squares of {@code y = a + b x} over the rows (all of them, or those of summaries). */
  private void fitLine(
      java.util.function.ToDoubleFunction<Row> xOf,
      java.util.function.ToDoubleFunction<Row> yOf,
      double[] ab,
      boolean all) {
    List<Row> fitted = new ArrayList<>();
    for (Row r : rows) {
      if (all || !r.distributions()) {
        fitted.add(r);
      }
    }
    int n = fitted.size();
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (Row r : fitted) {
      double x = xOf.applyAsDouble(r);
      double y = yOf.applyAsDouble(r);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    double det = n * sxx - sx * sx;
    if (n < 2 || Math.abs(det) < 1e-9) {
      ab[0] = 0;
      ab[1] = sx == 0 ? 0 : sy / sx;
      return;
    }
    ab[1] = (n * sxy - sx * sy) / det;
    ab[0] = (sy - ab[1] * sx) / n;
  }

  /** Bytes in per second the model gives for {@code r}, at {@code framing}. */
  static double modelIn(Row r, double[] framing) {
    return framing[0]
        + framing[1] * r.processes() * r.groupsMerged()
        + r.batchBytesPerSecond()
        + readRequestBytes(r.processes(), r.keys(), r.readEvery(), r.distributions());
  }

  /** Bytes out per second the model gives for {@code r}, at {@code framing}. */
  static double modelOut(Row r, double[] framing) {
    return framing[2]
        + framing[3] * r.processes() * r.groupsMerged()
        + r.batchBytesPerSecond()
        + r.reads();
  }

  /**
   * The CPU beyond the commands' own time, {@code base + e x events}, fitted by least squares of
   * the relative errors over the rows: core-seconds per second, and per I/O event.
   */
  double[] fit() {
    return fit2(
        rows, r -> 1, Row::eventsPerSecond, r -> r.cpuPercent() / 100 - r.commandSeconds(), true);
  }

  /** The rows against the model, and the big fleet per master, as markdown. */
  String markdown() {
    double[] fit = fit();
    double[] framing = framing();
    double[] k = eventsFit();
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "Fitted over the rows: Redis CPU beyond the commands' own time %.2f %% of a core plus"
                + " %.1f us per I/O event; beyond batches and reads, %,.0f + %.0f x P x g bytes"
                + " in and %,.0f + %.0f x P x g out a second.%n%n",
            fit[0] * 100, fit[1] * 1e6, framing[0], framing[1], framing[2], framing[3]));
    out.append(
        "| row | groups (model / merges measured) | commands/s, model (at the groups measured) /"
            + " measured | I/O events/s, model / measured | bytes in/s, model / measured | bytes"
            + " out/s, model / measured | Redis CPU: commands' own time + base + events, model /"
            + " measured |\n"
            + "|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      double commands = r.modelCommands();
      double in = modelIn(r, framing);
      double outBytes = modelOut(r, framing);
      double cpu = 100 * (r.commandSeconds() + fit[0] + fit[1] * r.eventsPerSecond());
      Markdown.row(
          out,
          r.name(),
          String.format("%.1f / %.1f", groups(r.keys()), r.groupsMerged()),
          String.format(
              "%,.0f (%,.0f) / %,.0f %s",
              commands(r.processes(), r.keys(), groups(r.keys()), r.readEvery(), 1),
              commands,
              r.commandsPerSecond(),
              within(commands, r.commandsPerSecond())),
          String.format(
              "%,.0f / %,.0f %s",
              r.modelEvents(k), r.eventsPerSecond(), within(r.modelEvents(k), r.eventsPerSecond())),
          String.format("%,.0f / %,.0f B %s", in, r.inPerSecond(), within(in, r.inPerSecond())),
          String.format(
              "%,.0f / %,.0f B %s", outBytes, r.outPerSecond(), within(outBytes, r.outPerSecond())),
          String.format(
              "%.2f + %.2f + %.2f = %.1f / %.1f %% %s",
              100 * r.commandSeconds(),
              100 * fit[0],
              100 * fit[1] * r.eventsPerSecond(),
              cpu,
              r.cpuPercent(),
              within(cpu, r.cpuPercent())));
    }
    out.append('\n');
    out.append(fleet(fit, framing, k));
    return out.toString();
  }

  private static String within(double model, double measured) {
    double off = measured == 0 ? 0 : (model - measured) / measured;
    return String.format("(%+.0f %%)", 100 * off);
  }

  /**
   * 1,000 pods x 500 keys on 3 masters, every pod reading every key every 15 s, publishing every 1
   * s and every 2 s: commands by type at the measured time per call of the row with the most
   * processes, bytes at the rows' bytes per key (summaries), per merged bucket (distributions: 200
   * x 20 merges 1,000 samples a key and second, as this fleet does) and per process, key and second
   * of batches (from the row whose processes record the fewest samples per key, closest to this
   * fleet's one a second).
   */
  private String fleet(double[] fit, double[] framing, double[] k) {
    Row summaries = null;
    Row distributions = null;
    Row batches = null;
    Row costs = null;
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
      if (costs == null || r.processes() > costs.processes()) {
        costs = r;
      }
    }
    if (summaries == null || batches == null) {
      return "";
    }
    double g = groups(FLEET_KEYS);
    double pods = FLEET_PODS;
    double batchBytes =
        pods * FLEET_KEYS * batches.batchBytesPerSecond() / (batches.processes() * batches.keys());
    double rowHsetBytes = costs.batchBytesPerSecond() / Math.max(1, costs.callsPerSecond("hset"));
    double rowInbox = costs.batchBytesPerSecond() / Math.max(1, costs.callsPerSecond("hgetall"));
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "Carried to 1,000 pods x 500 keys on 3 masters, every pod reading every key every 15"
                + " s, per master: commands at the time per call of the %s row (an HSET or HGETALL"
                + " larger than there at 1 ns a byte more), I/O events at the fitted %.2f per round or"
                + " read of a process and %.1f per group merged, %,.0f bytes of batches a second"
                + " from the fleet (the %s row's per process and key):%n%n",
            costs.name(), k[0], k[1], batchBytes, batches.name()));
    out.append(
        "| publish interval, reads | commands/s | commands' own time | I/O events/s | read bytes"
            + " out/s | all bytes out/s | bytes in/s | Redis CPU |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (double interval : new double[] {1, 2}) {
      for (Row r : new Row[] {summaries, distributions}) {
        if (r == null) {
          continue;
        }
        double hsets = pods * g / interval / MASTERS;
        double merges = g / interval / MASTERS;
        double hsetSeconds =
            costs.secondsPerCall("hset")
                + SECONDS_PER_BYTE * Math.max(0, batchBytes * interval / (pods * g) - rowHsetBytes);
        double hgetallSeconds =
            costs.secondsPerCall("hgetall")
                + SECONDS_PER_BYTE * Math.max(0, batchBytes * interval / g - rowInbox);
        double readsPerSecond = pods / FLEET_READ_EVERY;
        // on a cluster a read is one command per group, spread over the masters
        double readCommands = readsPerSecond * GROUPS / MASTERS;
        double reads =
            readBytes(
                    pods,
                    FLEET_KEYS,
                    FLEET_READ_EVERY,
                    r.distributions(),
                    r.summaryBytesPerKey(),
                    r.bucketBytes())
                / MASTERS;
        double pexpire = pods * g / QUARTER_WINDOW_SECONDS / MASTERS;
        double time = pods / interval / MASTERS;
        double bucketSets = FLEET_KEYS / g * (interval + 1);
        double renewals = 2 * g / interval / MASTERS;
        double commands =
            hsets + pexpire + time + merges * (13 + bucketSets) + renewals * 3 + readCommands;
        double commandSeconds =
            hsets * hsetSeconds
                + pexpire * costs.secondsPerCall("pexpire")
                + time * costs.secondsPerCall("time")
                + merges
                    * (hgetallSeconds
                        + 4 * costs.secondsPerCall("get")
                        + costs.secondsPerCall("evalsha")
                        + (4 + bucketSets) * costs.secondsPerCall("set")
                        + costs.secondsPerCall("hdel")
                        + costs.secondsPerCall("pexpire"))
                + renewals * (costs.secondsPerCall("evalsha") + costs.secondsPerCall("get"))
                + readCommands * costs.secondsPerCall("mget")
                + SECONDS_PER_BYTE * reads;
        // per master: every pod's round reaches it once and every read once; a third of the merges
        double events = k[0] * (pods / interval + readsPerSecond) + k[1] * g / interval / MASTERS;
        double perProcessGroup = pods * g / interval;
        double in =
            (framing[0] + framing[1] * perProcessGroup + batchBytes) / MASTERS
                + readRequestBytes(pods, FLEET_KEYS, FLEET_READ_EVERY, r.distributions()) / MASTERS;
        double outBytes =
            (framing[2] + framing[3] * perProcessGroup + batchBytes) / MASTERS + reads;
        double cpu = commandSeconds + fit[0] + fit[1] * events;
        Markdown.row(
            out,
            String.format(
                "%.0f s, %s",
                interval, r.distributions() ? "whole distributions (before)" : "summaries"),
            String.format("%,.0f", commands),
            String.format("%.1f %% of a core", 100 * commandSeconds),
            String.format("%,.0f", events),
            String.format("%.1f MB/s", reads / 1e6),
            String.format("%.1f MB/s", outBytes / 1e6),
            String.format("%.1f MB/s", in / 1e6),
            String.format("%.1f %% of a core", 100 * cpu));
      }
    }
    return out.toString();
  }

  /** Samples a process records per key and second in {@code r}. */
  private static double perKeyRate(Row r) {
    return 20_000.0 / r.processes() / r.keys();
  }
}
