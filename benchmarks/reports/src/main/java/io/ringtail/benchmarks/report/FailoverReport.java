package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.DocsBlock;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What a Sentinel failover costs under load when the promoted replica misses writes on purpose, in
 * the default mode and in strict mode ({@code confirmingReplicas(1)}). Each failover runs on a
 * fresh {@link LocalSentinelGroup} (a primary, one replica, three sentinels on loopback) that this
 * report starts:
 *
 * <ol>
 *   <li>Load for {@value FailoverRun#WARMUP_MILLIS} ms: {@value FailoverRun#KEYS} keys each of a
 *       sliding-log rate limiter, a bucketed rate limiter (both {@value FailoverRun#LIMIT} per
 *       {@value FailoverRun#WINDOW_SECONDS} s) and a sum cap (cap {@value FailoverRun#LIMIT}
 *       amounts of 10 per {@value FailoverRun#WINDOW_SECONDS} s), each key asked {@value
 *       FailoverRun#RATE} times a second (twice its limit), one thread per key; a threshold
 *       detector counting {@value FailoverRun#RATE} distinct events a second on each of {@value
 *       FailoverRun#KEYS} keys (a threshold it never reaches: every event is counted); a raw
 *       window, a histogram window and a keyed fleet window of {@value FailoverRun#KEYS} keys
 *       recording {@value FailoverRun#RATE} samples a second each (each key), flushing every 20
 *       samples.
 *   <li>The replica misses writes: its link is cut and it is stopped ({@link
 *       LocalSentinelGroup#detachAndPause}); the load goes on for {@value FailoverRun#LAG_MILLIS}
 *       ms (the replica is that far behind), then the primary is killed (SIGKILL) and the replica
 *       resumed.
 *   <li>The sentinels promote the replica; the killed server is restarted as a replica of the new
 *       primary (so strict mode has a replica to confirm again); the load goes on until {@value
 *       FailoverRun#AFTER_MILLIS} ms after the switch, then every window is flushed.
 * </ol>
 *
 * Measured per failover: over-admission per decision kind (for each key, the most admissions in any
 * window of the client's decision times beyond the limit, summed over keys; the sum cap in
 * amounts); for the raw window, samples whose record call Redis answered (every sample, once the
 * final flush succeeds) that the promoted primary lacks, and samples held twice; for the histogram
 * and keyed fleet windows, samples a successful flush covered that are missing from the final
 * count, and samples counted beyond those recorded; for the threshold detector, after the load
 * every event is recorded again: one answered {@code COUNTED} before and {@code COUNTED} again was
 * lost, one answered as an outage and now {@code DUPLICATE} was counted while the caller was told
 * it failed; how far behind the replica was (replication bytes); the time from the kill to the
 * sentinels' switch and from the switch to the first decision Redis answered. Before the failovers,
 * the cost of strict mode per decision on a healthy group: decisions/s and latency from 1 and 8
 * threads on one connection.
 *
 * <p>Run: {@code benchmarks/failover-report.sh [--failovers 20] [--docs docs/failover.md]}. About
 * 15 s per failover. Writes {@code benchmarks/target/failover.md}; each {@code --docs FILE}
 * replaces the block between {@value #BEGIN} and {@value #END}. A main; not thread-safe.
 */
public final class FailoverReport {
  static final String BEGIN = "<!-- failover-report:begin -->";
  static final String END = "<!-- failover-report:end -->";

  private FailoverReport() {}

  /** The command line. */
  @Command(
      name = "FailoverReport",
      description = "Every kind of window and decision through Redis failovers.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.writing("failover.md").acceptDocs();

    @Option(names = "--failovers", description = "Failovers per mode.")
    int failovers = 20;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Path out = cli.common.out();
    List<Path> docs = cli.common.docs();
    int failovers = cli.failovers;
    long started = System.nanoTime();
    String load = Machine.loadAverage();
    StringBuilder md = new StringBuilder();
    md.append("Strict mode's cost per decision (sliding-log limiter, 1,000 keys, one connection, ")
        .append("a primary with one healthy replica on loopback, 3 s per row):\n\n")
        .append("| mode | threads | decisions/s | p50 µs | p99 µs |\n")
        .append("|---|---:|---:|---:|---:|\n");
    for (int threads : new int[] {1, 8}) {
      for (int replicas : new int[] {0, 1}) {
        double[] c = StrictModeCost.cost(replicas, threads);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %,.0f | %.0f | %.0f |%n",
                replicas == 0 ? "default" : "strict (1 replica)",
                threads,
                c[0],
                c[1],
                c[2]));
      }
    }
    Map<String, List<FailoverRun.Run>> byMode = new LinkedHashMap<>();
    for (int replicas : new int[] {0, 1}) {
      String mode = replicas == 0 ? "default" : "strict (`confirmingReplicas(1)`)";
      List<FailoverRun.Run> runs = new ArrayList<>();
      for (int f = 0; f < failovers; f++) {
        FailoverRun.Run r = FailoverRun.failover(replicas, f);
        System.out.println(mode + " failover " + (f + 1) + ": " + r);
        runs.add(r);
      }
      byMode.put(mode, runs);
    }
    md.append("\nPer failover, ")
        .append(failovers)
        .append(" failovers per mode, the replica ")
        .append(FailoverRun.LAG_MILLIS)
        .append(" ms behind when the primary is killed: min / median / max (total).\n\n")
        .append("| per failover | ")
        .append(String.join(" | ", byMode.keySet()))
        .append(" |\n|---|")
        .append("---:|".repeat(byMode.size()))
        .append("\n");
    String[] rows = {
      "replica behind (bytes)",
      "admissions decided from the detach to the kill (3 kinds)",
      "raw samples a flush confirmed from the detach to the kill",
      "over-admission: sliding log",
      "over-admission: bucketed",
      "over-admission: sum cap (amounts)",
      "raw window: samples acknowledged as stored, missing after",
      "raw window: samples held twice",
      "histogram window: samples a flush confirmed, missing after",
      "histogram window: samples counted twice",
      "keyed fleet window: samples a flush confirmed, missing after",
      "keyed fleet window: samples counted twice",
      "threshold detector: events answered counted, missing after",
      "threshold detector: events answered as an outage, counted after",
      "unconfirmed writes (answered as an outage)",
      "kill to switch (ms)",
      "switch to first answered decision (ms)"
    };
    for (int row = 0; row < rows.length; row++) {
      md.append("| ").append(rows[row]).append(" |");
      for (List<FailoverRun.Run> runs : byMode.values()) {
        int k = row;
        md.append(' ').append(stats(runs.stream().mapToLong(r -> r.values()[k]).toArray()));
        md.append(" |");
      }
      md.append('\n');
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%nredis-server %s, Lettuce 6.8 (reconnect delay 10-100 ms), command timeout %d ms;"
                + " sentinels: down after %d ms, quorum 2. %s, load average at start %s, %.0f s"
                + " in all. Command: `benchmarks/failover-report.sh --failovers %d`.%n",
            serverVersion(),
            FailoverRun.TIMEOUT.toMillis(),
            LocalSentinelGroup.DOWN_AFTER_MILLIS,
            Instant.now().truncatedTo(ChronoUnit.SECONDS),
            load,
            (System.nanoTime() - started) / 1e9,
            failovers));
    String markdown = md.toString();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println(markdown);
    for (Path doc : docs) {
      DocsBlock.replace(doc, BEGIN, END, markdown);
    }
    System.exit(0);
  }

  private static String stats(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    long total = Arrays.stream(s).sum();
    return String.format(
        Locale.ROOT, "%d / %d / %d (%d)", s[0], s[s.length / 2], s[s.length - 1], total);
  }

  private static String serverVersion() {
    try (RedisProcess p = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      try (StatefulRedisConnection<String, String> c = client.connect(p.uri())) {
        return c.sync()
            .info("server")
            .lines()
            .filter(l -> l.startsWith("redis_version:"))
            .map(l -> l.substring("redis_version:".length()))
            .findFirst()
            .orElse("?");
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
