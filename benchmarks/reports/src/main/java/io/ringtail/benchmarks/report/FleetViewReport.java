package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.WindowSnapshot;
import io.ringtail.benchmarks.toolkit.ChildJvm;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.Markdown;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.testkit.RedisProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What a fleet view costs Redis when every pod publishes and reads it, in one run against one fresh
 * {@code redis-server} this report starts on a free port. Per row ({@code processes x keys}, or
 * {@code processes x windows single} for single histogram windows), over {@code --jvms} child JVMs
 * ({@link FleetViewProcess}), every simulated process publishing every second and reading every key
 * of its windows every {@code --read-every} seconds:
 *
 * <ol>
 *   <li>a victim process that starts first (so it holds the merger leases) and one that starts with
 *       the fleet, both flushing every second and saying what each flush carries;
 *   <li>5 s of warm-up, then {@code --seconds} measured: Redis CPU, commands/s, Redis time per
 *       process, key and second, calls over 1 ms ({@code SLOWLOG}), reads done on time against
 *       reads due, read latency ({@code summaries()}, or {@code snapshots()} with {@code
 *       --distributions}), {@code MEMORY USAGE} per key;
 *   <li>kill -9 of the merger (the time until every lease it held is another's), Redis stopped
 *       (SIGSTOP) for 5 s, 5 s up again, kill -9 of the other victim;
 *   <li>the fleet stops and flushes; each key's fleet count against the exact oracle (the victims'
 *       last unconfirmed flush may or may not count); {@code MEMORY USAGE} once merged.
 * </ol>
 *
 * Writes markdown to {@code --out}. A main, not thread-safe.
 */
public final class FleetViewReport {
  /** Buckets in each window of the rows: 60 s in buckets of 1 s. */
  private static final int BUCKETS = 60;

  /** The model, with one row per measured keyed row (a main: one run per JVM). */
  private static final FleetViewModel MODEL = FleetViewModel.create();

  private FleetViewReport() {}

  /** The command line. */
  @Command(
      name = "FleetViewReport",
      description = "Fleet histogram windows that every pod publishes and reads.")
  static final class Options {
    @Mixin
    ReportOptions common =
        ReportOptions.writing("fleet-view-report.md")
            .acceptSeconds(20)
            .acceptRate(20_000)
            .acceptJvms()
            .acceptServerRealtime();

    @Option(
        names = "--rows",
        description =
            "processes x keys, comma-separated; after a row 's': single windows, 'p': publishing"
                + " only, no reads, 'd': reads of whole distributions instead of summaries.")
    String rows = "20x20,60x20,200x20,400x10,200x20d,20x50sp,20x50s";

    @Option(names = "--read-every", description = "Seconds between one process's reads.")
    int readEvery = 2;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    StringBuilder md = new StringBuilder();
    Instant began = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    md.append(
        "| processes x keys | Redis CPU | commands/s | Redis time per process, key, second |"
            + " calls over 1 ms (max) | reads done / due | read p50 / p95 / max |"
            + " `MEMORY USAGE` per key: running / merged (merged buckets alone) |"
            + " merger takeover | count vs oracle |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    try (RedisProcess server = RedisProcess.start()) {
      if (cli.common.serverRealtime()) {
        Machine.realtime(server.pid());
      }
      RedisClient client = RedisClient.create();
      try (StatefulRedisConnection<String, String> admin = client.connect(server.uri())) {
        RedisCommands<String, String> redis = admin.sync();
        for (String row : cli.rows.split(",")) {
          String[] pk = row.replaceAll("[a-z]+$", "").split("x");
          String kind = row.substring(row.replaceAll("[a-z]+$", "").length());
          int processes = Integer.parseInt(pk[0]);
          int keys = Integer.parseInt(pk[1]);
          System.err.println("row " + row + ", load " + Machine.loadAverage());
          md.append(
                  row(
                      cli,
                      server,
                      client,
                      redis,
                      processes,
                      keys,
                      kind.contains("s"),
                      kind.contains("p"),
                      kind.contains("d")))
              .append('\n');
        }
      }
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    String text =
        "FleetViewReport, "
            + began
            + " to "
            + Instant.now().truncatedTo(ChronoUnit.SECONDS)
            + ", "
            + Machine.cores()
            + " cores, "
            + Machine.cpuModel()
            + ", load before: see stderr; rate "
            + cli.common.rate()
            + " samples/s, reads every "
            + cli.readEvery
            + " s (summaries, or whole distributions in the rows marked so)"
            + (cli.common.serverRealtime() ? ", redis-server at real-time priority" : "")
            + "\n\n"
            + md
            + "\nThe cost model against each keyed row (see FleetViewModel), and carried to 1,000"
            + " pods x 500 keys on 3 masters, each pod reading every key every 15 s:\n\n"
            + MODEL.markdown();
    Files.createDirectories(cli.common.out().toAbsolutePath().getParent());
    Files.writeString(cli.common.out(), text);
    System.out.println(text);
  }

  private static List<String> java(Options cli, int port, String name, String... extra) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx2g",
                "-cp",
                System.getProperty("java.class.path"),
                FleetViewProcess.class.getName(),
                "--port",
                Integer.toString(port),
                "--name",
                name));
    if (!Arrays.asList(extra).contains("--read-every")) {
      command.addAll(List.of("--read-every", Integer.toString(cli.readEvery)));
    }
    command.addAll(Arrays.asList(extra));
    return command;
  }

  private static String row(
      Options cli,
      RedisProcess server,
      RedisClient client,
      RedisCommands<String, String> redis,
      int processes,
      int keys,
      boolean single,
      boolean publishOnly,
      boolean distributions)
      throws Exception {
    redis.flushall();
    String name =
        "view-" + processes + "x" + keys + (single ? "s" : "") + (distributions ? "d" : "");
    List<String> kindArgs = new ArrayList<>();
    if (single) {
      kindArgs.add("--single");
    }
    if (distributions) {
      kindArgs.add("--distributions");
    }
    if (publishOnly) {
      kindArgs.addAll(List.of("--read-every", "0"));
    }
    String[] kind = kindArgs.toArray(String[]::new);
    List<String> keysArg = List.of("--keys", Integer.toString(keys));
    ChildJvm merger = start(cli, server, name, kind, keysArg, "--victim", "--seed", "7");
    Thread.sleep(1_500); // it takes the leases of the groups its keys fall in
    java.util.Set<String> victimTokens =
        new java.util.HashSet<>(FleetViewRedis.leases(redis, name).values());
    List<ChildJvm> fleet = new ArrayList<>();
    for (int j = 0; j < cli.common.jvms(); j++) {
      int share = processes / cli.common.jvms() + (j < processes % cli.common.jvms() ? 1 : 0);
      fleet.add(
          start(
              cli,
              server,
              name,
              kind,
              keysArg,
              "--processes",
              Integer.toString(share),
              "--rate",
              Long.toString(cli.common.rate() / cli.common.jvms()),
              "--seed",
              Integer.toString(11 + j)));
    }
    ChildJvm other = start(cli, server, name, kind, keysArg, "--victim", "--seed", "8");
    Thread.sleep(5_000);
    int[] victimMark1 = {merger.lines.size(), other.lines.size()};
    for (ChildJvm c : fleet) {
      c.say("PHASE 1");
    }
    redis.configResetstat();
    redis.configSet("slowlog-log-slower-than", "1000");
    redis.slowlogReset();
    double cpu0 = FleetViewRedis.cpu(redis);
    double[] net0 = FleetViewRedis.network(redis);
    long[] events0 = FleetViewRedis.events(redis);
    Thread.sleep(cli.common.wholeSeconds() * 1_000L);
    double cpu1 = FleetViewRedis.cpu(redis);
    double[] net1 = FleetViewRedis.network(redis);
    long[] events1 = FleetViewRedis.events(redis);
    String stats = redis.info("commandstats");
    List<Object> slow = redis.slowlogGet(128);
    long[] runningMemory = FleetViewRedis.memory(redis, name);
    long summaryBytes = FleetViewRedis.summaryBytes(redis, name);
    int[] victimMark2 = {merger.lines.size(), other.lines.size()};
    for (ChildJvm c : fleet) {
      c.say("PHASE 2");
    }
    // kill -9 of the merger: how long until each lease it held is another's
    Map<String, String> leases = FleetViewRedis.leases(redis, name);
    leases.values().removeIf(holder -> !victimTokens.contains(holder));
    merger.process.destroyForcibly().waitFor();
    long killed = System.nanoTime();
    long takeover = -1;
    while (System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(10)) {
      Map<String, String> now = FleetViewRedis.leases(redis, name);
      boolean all = !leases.isEmpty();
      for (Map.Entry<String, String> e : leases.entrySet()) {
        String holder = now.get(e.getKey());
        all &= holder != null && !holder.equals(e.getValue());
      }
      if (all) {
        takeover = (System.nanoTime() - killed) / 1_000_000;
        break;
      }
      Thread.sleep(20);
    }
    server.pause();
    Thread.sleep(5_000);
    server.resume();
    Thread.sleep(5_000);
    other.process.destroyForcibly().waitFor();
    for (ChildJvm c : fleet) {
      c.say("END");
    }
    Map<Integer, Map<Long, Long>> oracle = new HashMap<>();
    long due = 0;
    long onTime = 0;
    List<Long> reads = new ArrayList<>();
    for (ChildJvm c : fleet) {
      c.await("DONE", 120);
      for (String line : c.lines) {
        String[] f = line.split(" ");
        if (f[0].equals("COUNT")) {
          oracle
              .computeIfAbsent(Integer.parseInt(f[1]), k -> new HashMap<>())
              .merge(Long.parseLong(f[2]), Long.parseLong(f[3]), Long::sum);
        } else if (f[0].equals("READS")) {
          due += Long.parseLong(f[1]);
          onTime += Long.parseLong(f[2]);
        } else if (f[0].equals("READ")) {
          reads.add(Long.parseLong(f[1]));
        }
      }
    }
    List<List<String>> victims = List.of(merger.lines, other.lines);
    long batchBytes = 0;
    for (ChildJvm c : fleet) {
      batchBytes +=
          lastField(c.lines, "BYTES 2", c.lines.size())
              - lastField(c.lines, "BYTES 1", c.lines.size());
    }
    for (int v = 0; v < 2; v++) {
      batchBytes +=
          lastField(victims.get(v), "STAT", victimMark2[v])
              - lastField(victims.get(v), "STAT", victimMark1[v]);
    }
    String counts = check(client, server, name, keys, single, oracle, victims);
    long[] mergedMemory = FleetViewRedis.memory(redis, name);
    Map<String, long[]> commands = FleetViewRedis.commandstats(stats);
    long calls = 0;
    long usec = 0;
    for (long[] c : commands.values()) {
      calls += c[0];
      usec += c[1];
    }
    commands.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
        .forEach(
            e ->
                System.err.printf(
                    "  %s: %,d calls/s, %.1f us per call, %.2f %% of a core%n",
                    e.getKey(),
                    e.getValue()[0] / cli.common.wholeSeconds(),
                    (double) e.getValue()[1] / Math.max(1, e.getValue()[0]),
                    e.getValue()[1] / (10_000.0 * cli.common.wholeSeconds())));
    long slowMax = 0;
    for (Object entry : slow) {
      List<?> e = (List<?>) entry;
      slowMax = Math.max(slowMax, (Long) e.get(2));
      System.err.println("  slow: " + e.get(2) + " us " + e.get(3));
    }
    reads.sort(null);
    int seconds = cli.common.wholeSeconds();
    double cpuPercent = 100 * (cpu1 - cpu0) / seconds;
    if (!single) { // the model is the keyed face's; a single window is its own window
      MODEL.add(
          processes
              + " x "
              + keys
              + (publishOnly ? ", publishing only" : "")
              + (distributions ? ", reading distributions" : ""),
          processes + 2,
          keys,
          publishOnly ? 0 : cli.readEvery,
          distributions,
          commands,
          seconds,
          cpuPercent,
          (net1[0] - net0[0]) / seconds,
          (net1[1] - net0[1]) / seconds,
          (double) (events1[0] + events1[1] - events0[0] - events0[1]) / seconds,
          (double) batchBytes / seconds,
          (double) mergedMemory[1] / keys / BUCKETS,
          (double) summaryBytes / keys);
    }

    StringBuilder row = new StringBuilder();
    Markdown.row(
        row,
        processes
            + " x "
            + keys
            + (single ? " single windows" : "")
            + (publishOnly ? ", publishing only" : "")
            + (distributions ? ", reading distributions" : ""),
        String.format("%.1f %%", cpuPercent),
        String.format("%,d", calls / cli.common.wholeSeconds()),
        String.format(
            "%.2f us", (double) usec / ((processes + 2.0) * keys * cli.common.wholeSeconds())),
        slow.size() + (slow.isEmpty() ? "" : " (" + slowMax / 1000.0 + " ms)"),
        onTime + " / " + due,
        reads.isEmpty()
            ? "none"
            : String.format(
                "%.2f / %.2f / %.2f ms",
                reads.get(reads.size() / 2) / 1000.0,
                reads.get((int) (reads.size() * 0.95)) / 1000.0,
                reads.get(reads.size() - 1) / 1000.0),
        String.format(
            "%,d B / %,d B (%,d B)",
            runningMemory[0] / keys, mergedMemory[0] / keys, mergedMemory[1] / keys),
        takeover < 0 ? "none in 10 s" : takeover + " ms",
        counts);
    return row.toString().stripTrailing();
  }

  /**
   * The last field of the last line starting with {@code prefix} among the first {@code end} lines;
   * 0 if none.
   */
  private static long lastField(List<String> lines, String prefix, int end) {
    synchronized (lines) {
      for (int i = Math.min(end, lines.size()) - 1; i >= 0; i--) {
        String line = lines.get(i);
        if (line.startsWith(prefix)) {
          return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
    }
    return 0;
  }

  private static ChildJvm start(
      Options cli, RedisProcess server, String name, String[] kind, List<String> keys, String... a)
      throws Exception {
    List<String> extra = new ArrayList<>(Arrays.asList(kind));
    extra.addAll(keys);
    extra.addAll(Arrays.asList(a));
    ChildJvm c = new ChildJvm(java(cli, server.port(), name, extra.toArray(String[]::new)));
    c.await("READY", 120);
    c.say("GO");
    return c;
  }

  /**
   * What a killed victim leaves counted in the buckets from {@code first} on: at least what Redis
   * confirmed it published less what it recorded before {@code first} (what it published first left
   * the window first), at most what it recorded from {@code first} on plus one batch of records (20
   * per key) after its last word. Its {@code STAT} lines give, per batch, the bucket and the
   * samples recorded.
   */
  private static long[] victim(List<String> lines, int keys, long lowFirst, long highFirst) {
    long published = 0;
    long before = 0;
    long from = 0;
    synchronized (lines) {
      for (String line : lines) {
        String[] f = line.split(" ");
        if (f[0].equals("STAT")) {
          published = Long.parseLong(f[1]);
          long bucket = Long.parseLong(f[3]);
          long n = Long.parseLong(f[4]);
          if (bucket < highFirst) {
            before += n;
          }
          if (bucket >= lowFirst) {
            from += n;
          }
        }
      }
    }
    return new long[] {Math.max(0, published - before), from + 20L * keys};
  }

  /**
   * Each key's fleet count after a reader's own flush (one sample per key, which merges every
   * group), against the fleet's exact oracle over the buckets the snapshot covers; what the keys
   * hold beyond it must be the victims', within what they may have left.
   */
  private static String check(
      RedisClient client,
      RedisProcess server,
      String name,
      int keys,
      boolean single,
      Map<Integer, Map<Long, Long>> oracle,
      List<List<String>> victimLines) {
    try (StatefulRedisConnection<String, String> c = client.connect(server.uri())) {
      RedisBackend backend = RedisBackend.builder(c).commandTimeout(Duration.ofSeconds(5)).build();
      long[] counted = new long[keys];
      long[] start = new long[keys];
      if (single) {
        for (int k = 0; k < keys; k++) {
          RedisHistogramWindow w =
              backend.histogramWindow(name + "-" + k).config(FleetViewProcess.config()).build();
          w.record(1);
          w.flush(Duration.ofSeconds(20));
          WindowSnapshot s = w.snapshot();
          counted[k] = s.count() - 1;
          start[k] = s.startNanos();
          w.close();
        }
      } else {
        RedisKeyedHistogramWindows w =
            backend.keyedHistogramWindows(name).config(FleetViewProcess.config()).build();
        for (int k = 0; k < keys; k++) {
          w.record(FleetViewProcess.key(k), 1);
        }
        w.flush(Duration.ofSeconds(20));
        for (int k = 0; k < keys; k++) {
          WindowSnapshot s = w.snapshot(FleetViewProcess.key(k));
          counted[k] = s.count() - 1;
          start[k] = s.startNanos();
        }
        w.close();
      }
      long total = 0;
      long expected = 0;
      int atLeast = 0;
      long lowFirst = Long.MAX_VALUE;
      long highFirst = Long.MIN_VALUE;
      for (int k = 0; k < keys; k++) {
        long first = Math.floorDiv(start[k], FleetViewProcess.WIDTH);
        lowFirst = Math.min(lowFirst, first);
        highFirst = Math.max(highFirst, first);
        long want = 0;
        for (Map.Entry<Long, Long> e : oracle.getOrDefault(k, Map.of()).entrySet()) {
          if (e.getKey() >= first) {
            want += e.getValue();
          }
        }
        total += counted[k];
        expected += want;
        if (counted[k] >= want) {
          atLeast++;
        }
      }
      long[] victims = new long[2];
      for (List<String> lines : victimLines) {
        long[] range = victim(lines, keys, lowFirst, highFirst);
        victims[0] += range[0];
        victims[1] += range[1];
      }
      long extra = total - expected;
      boolean within = extra >= victims[0] && extra <= victims[1];
      return String.format(
          "fleet %,d, each key at least its oracle in %d of %d; victims' %,d in [%,d, %,d]: %s",
          expected, atLeast, keys, extra, victims[0], victims[1], within ? "within" : "OUTSIDE");
    }
  }
}
