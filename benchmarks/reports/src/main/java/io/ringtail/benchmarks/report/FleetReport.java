package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.benchmarks.redis.FleetBenchmark;
import io.ringtail.benchmarks.redis.RedisBenchmark;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramSnapshot;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.testkit.RedisProcess;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The fleet measurement of the histogram window, in one run against one fresh {@code redis-server}
 * this report starts on a free port:
 *
 * <ol>
 *   <li>{@link FleetBenchmark} under JMH with the GC profiler: record cost of the histogram window
 *       against the in-process window (ns/op, B/op), and merging sixty 1-second snapshots.
 *   <li>The fleet: {@code --jvms} child JVMs ({@link FleetProcess}) of {@code --processes}
 *       simulated processes each (own client, connection, backend), together {@code --rate}
 *       samples/s (default 1,030,000, a few per cent over the target; the rate reported is the
 *       measured one) into one 60 s window for {@code --seconds}; meanwhile one fleet snapshot per
 *       second from this JVM. Then: Redis server CPU ({@code INFO cpu}) over the run, {@code MEMORY
 *       USAGE} of the window's keys, P50/P95/P99 of a final snapshot against the exact oracle the
 *       children kept over the same buckets, count against the oracle, and 200 back-to-back
 *       snapshot latencies.
 *   <li>The raw-sample window beside it: {@code --raw-writers} threads, each its own connection,
 *       recording as fast as they can for {@code --raw-seconds} into one window capped at 10M
 *       samples: stored samples/s, server CPU, memory.
 * </ol>
 *
 * Writes a markdown table to {@code --out} (default {@code benchmarks/target/fleet-report.md}).
 *
 * <p>Run: {@code java -cp benchmarks/reports/target/reports.jar
 * io.ringtail.benchmarks.report.FleetReport}. A main, not thread-safe.
 */
public final class FleetReport {
  private FleetReport() {}

  /** The command line. */
  @Command(
      name = "FleetReport",
      description =
          "Fleet histogram window against a redis-server it starts: simulated processes in child JVMs.")
  static final class Options {
    @Mixin
    ReportOptions common =
        ReportOptions.writing("fleet-report.md")
            .acceptSeconds(70)
            .acceptRate(1_030_000)
            .acceptJvms();

    @Option(names = "--processes", description = "Simulated processes.")
    int processes = 10;

    @Option(names = "--raw-writers", description = "Writers of the raw-sample window row.")
    int rawWriters = 4;

    @Option(names = "--raw-seconds", description = "Seconds of the raw-sample window row.")
    int rawSeconds = 20;

    @Option(names = "--no-jmh", description = "Skip the JMH rows.")
    boolean noJmh;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Path out = cli.common.out();
    int jvms = cli.common.jvms();
    int processes = cli.processes;
    long rate = cli.common.rate();
    int seconds = cli.common.wholeSeconds();
    int rawWriters = cli.rawWriters;
    int rawSeconds = cli.rawSeconds;
    boolean jmh = !cli.noJmh;
    StringBuilder report = new StringBuilder();
    report
        .append("Fleet report, ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(", ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" CPUs\n\n");
    try (RedisProcess server = RedisProcess.start()) {
      if (jmh) {
        jmh(server.port(), report);
      }
      RedisClient client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
        fleet(server, connection, jvms, processes, rate, seconds, report);
        RawWindowRow.measure(server, connection, rawWriters, rawSeconds, report);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
    }
    System.out.println(report);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report.toString());
  }

  private static void jmh(int port, StringBuilder report) throws Exception {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include(FleetBenchmark.class.getName())
                    .addProfiler(GCProfiler.class)
                    .jvmArgsAppend("-D" + RedisBenchmark.PORT_PROPERTY + "=" + port)
                    .build())
            .run();
    Map<String, double[]> rows = new HashMap<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      name = name.substring(name.lastIndexOf('.') + 1);
      Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
      if (alloc == null) {
        alloc = r.getSecondaryResults().get("·gc.alloc.rate.norm");
      }
      rows.put(
          name,
          new double[] {
            r.getPrimaryResult().getScore(),
            r.getPrimaryResult().getScoreError(),
            alloc == null ? Double.NaN : alloc.getScore()
          });
    }
    double[] inProc = rows.get("recordInProcess");
    double[] hist = rows.get("recordHistogramWindow");
    double[] add = rows.get("mergeAddCounts");
    double[] rebuild = rows.get("mergeRebuild");
    report.append(
        "| JMH (1 fork, 2 threads for record) | score | B/op | ratio |\n|---|---|---|---|\n");
    report.append(
        String.format(
            "| record, in-process window | %.1f ± %.1f ns | %.3f | 1.00 |%n",
            inProc[0], inProc[1], inProc[2]));
    report.append(
        String.format(
            "| record, histogram window | %.1f ± %.1f ns | %.3f | %.2f (target <= 1.2, 0 B/op) |%n",
            hist[0], hist[1], hist[2], hist[0] / inProc[0]));
    report.append(
        String.format(
            "| merge 60 x 1 s snapshots, rebuilding histograms (previous) | %.0f ± %.0f us | %.0f | 1.00 |%n",
            rebuild[0], rebuild[1], rebuild[2]));
    report.append(
        String.format(
            "| merge 60 x 1 s snapshots, adding counts | %.0f ± %.0f us | %.0f | %.3f (target <= 0.10) |%n%n",
            add[0], add[1], add[2], add[0] / rebuild[0]));
  }

  private static void fleet(
      RedisProcess server,
      StatefulRedisConnection<String, String> connection,
      int jvms,
      int processes,
      long rate,
      int seconds,
      StringBuilder report)
      throws Exception {
    String name = "fleet-" + System.nanoTime();
    RedisCommands<String, String> redis = connection.sync();
    RedisBackend backend =
        RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(2)).build();
    RedisHistogramWindow observer = backend.histogramWindow(name).build();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> children = new ArrayList<>();
    List<BufferedReader> outputs = new ArrayList<>();
    List<Path> oracles = new ArrayList<>();
    for (int j = 0; j < jvms; j++) {
      Path oracle = Files.createTempFile("ringtail-fleet-oracle", ".bin");
      oracles.add(oracle);
      Process p =
          new ProcessBuilder(
                  java,
                  "-Xmx768m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  FleetProcess.class.getName(),
                  "--port",
                  Integer.toString(server.port()),
                  "--name",
                  name,
                  "--processes",
                  Integer.toString(processes),
                  "--rate",
                  Long.toString(rate / jvms),
                  "--seconds",
                  Integer.toString(seconds),
                  "--out",
                  oracle.toString(),
                  "--seed",
                  Integer.toString(j + 1))
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      children.add(p);
      BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      outputs.add(r);
    }
    for (BufferedReader r : outputs) {
      String line;
      while ((line = r.readLine()) != null && !line.equals("READY")) {
        System.out.println(line);
      }
    }
    double cpu0 = ServerReadings.cpuSeconds(redis);
    long wall0 = System.nanoTime();
    for (Process p : children) {
      Writer w = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
      w.write("GO\n");
      w.flush();
    }
    List<Long> loadedLatencies = new ArrayList<>();
    long worstStaleness = 0;
    long deadline = wall0 + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline - TimeUnit.SECONDS.toNanos(1)) {
      long t = System.nanoTime();
      RedisHistogramSnapshot s = observer.snapshot();
      loadedLatencies.add(System.nanoTime() - t);
      if (System.nanoTime() - wall0 > TimeUnit.SECONDS.toNanos(5)) {
        worstStaleness = Math.max(worstStaleness, s.stalenessNanos());
      }
      Thread.sleep(1000);
    }
    long[] stats = new long[7];
    for (BufferedReader r : outputs) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("STATS ")) {
          String[] f = line.substring(6).split(" ");
          for (int i = 0; i < 6; i++) {
            stats[i] += Long.parseLong(f[i]);
          }
          stats[6] = Math.max(stats[6], Long.parseLong(f[6]));
        } else {
          System.out.println(line);
        }
      }
    }
    for (Process p : children) {
      p.waitFor();
    }
    double wall = (System.nanoTime() - wall0) / 1e9;
    double cpu = ServerReadings.cpuSeconds(redis) - cpu0;
    RedisHistogramSnapshot last = observer.snapshot();
    long lastBucket = Math.floorDiv(last.endNanos(), 1_000_000_000L);
    long[] exact = new long[FleetProcess.MAX_MICROS + 1];
    long oracleAll = 0;
    for (Path oracle : oracles) {
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(new FileInputStream(oracle.toFile())))) {
        int ring = in.readInt();
        for (int slot = 0; slot < ring; slot++) {
          long bucket = in.readLong();
          boolean covered = bucket > lastBucket - 60 && bucket <= lastBucket;
          for (int m = 0; m <= FleetProcess.MAX_MICROS; m++) {
            int c = in.readInt();
            oracleAll += c;
            if (covered) {
              exact[m] += c;
            }
          }
        }
      }
      Files.deleteIfExists(oracle);
    }
    long exactCount = Arrays.stream(exact).sum();
    long[] keys = new long[1];
    long memory = ServerReadings.memoryOf(redis, "ringtail:{" + name + "@*", keys);
    List<Long> idleLatencies = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      long t = System.nanoTime();
      observer.snapshot();
      idleLatencies.add(System.nanoTime() - t);
    }
    report.append(
        String.format(
            "Fleet: %d JVMs x %d simulated processes (each its own connection), target %,d samples/s "
                + "into one 60 s window (60 x 1 s buckets, 2 digits), %d s.%n%n",
            jvms, processes, rate, seconds));
    report.append("| fleet figure | value | target |\n|---|---|---|\n");
    double recording = stats[6] / 1e9;
    report.append(
        String.format(
            "| samples recorded (all processes) | %,d in %.2f s (%,.0f samples/s; first to last sample of the slowest JVM) | >= 1,000,000/s for >= 60 s |%n",
            stats[0], recording, stats[0] / recording));
    report.append(
        String.format(
            "| published / dropped / expired / failed calls / pending | %,d / %d / %d / %d / %d | all published |%n",
            stats[1], stats[2], stats[3], stats[4], stats[5]));
    report.append(
        String.format(
            "| Redis server CPU over the run | %.1f %% of one core (%.2f s in %.1f s) | <= 5 %% |%n",
            100 * cpu / wall, cpu, wall));
    report.append(
        String.format(
            "| Redis memory of the window (MEMORY USAGE, %d keys) | %,d bytes | <= 1 MB |%n",
            keys[0], memory));
    report.append(
        String.format(
            "| final snapshot count vs exact oracle, same 60 buckets | %,d vs %,d (%+d) | exact |%n",
            last.count(), exactCount, last.count() - exactCount));
    for (double p : new double[] {50, 95, 99}) {
      long truth = nearestRank(exact, exactCount, p) * 1_000L;
      double got = last.valueAtPercentile(p);
      report.append(
          String.format(
              "| P%.0f: snapshot vs exact | %.0f ns vs %,d ns (%+.3f %%) | within 1 %% |%n",
              p, got, truth, 100 * (got - truth) / truth));
    }
    report.append(
        String.format(
            "| publishers in the snapshot | %d | %d |%n", last.publishers(), jvms * processes));
    report.append(
        String.format(
            "| worst staleness seen under load (after 5 s) | %.2f s | <= publish interval + snapshot interval |%n",
            worstStaleness / 1e9));
    report.append(
        String.format(
            "| snapshot latency while the fleet records, both cores busy (%d snapshots) | p50 %.2f ms, p95 %.2f ms, max %.2f ms | (for information) |%n",
            loadedLatencies.size(),
            pct(loadedLatencies, 50),
            pct(loadedLatencies, 95),
            pct(loadedLatencies, 100)));
    report.append(
        String.format(
            "| snapshot latency, 60 buckets x %d publishers, 200 back to back | p50 %.2f ms, p95 %.2f ms, max %.2f ms | <= 5 ms |%n%n",
            jvms * processes,
            pct(idleLatencies, 50),
            pct(idleLatencies, 95),
            pct(idleLatencies, 100)));
  }

  private static long nearestRank(long[] counts, long total, double p) {
    long rank = Math.max(1, (long) Math.ceil(p / 100.0 * total));
    long seen = 0;
    for (int m = 0; m < counts.length; m++) {
      seen += counts[m];
      if (seen >= rank) {
        return m;
      }
    }
    return counts.length - 1;
  }

  static double pct(List<Long> nanos, double p) {
    long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    int i =
        (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100.0 * sorted.length) - 1));
    return sorted[i] / 1e6;
  }
}
