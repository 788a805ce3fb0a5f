package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.WindowSnapshot;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.testkit.RedisProcess;
import java.io.BufferedReader;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What a fleet of keyed histogram windows costs Redis, in one run against one fresh {@code
 * redis-server} this report starts on a free port. For each row ({@code processes x windows}: that
 * many simulated processes, each its own connection and backend, each with keyed windows of that
 * many keys; {@code --rate} samples/s in all, the same in every row), over {@code --jvms} child
 * JVMs ({@link KeyedFleetProcess}):
 *
 * <ol>
 *   <li>5 s of warm-up, then {@code --seconds} with Redis up: Redis CPU ({@code INFO cpu}), calls/s
 *       and server time by command ({@code INFO commandstats}), Redis time per process per window
 *       per second, calls over 1 ms ({@code SLOWLOG} at 1 ms);
 *   <li>snapshot latency of one key: 20 cold reads (a new reader each) and 200 back to back, while
 *       the fleet records and again after it stopped;
 *   <li>Redis stopped (SIGSTOP) for 5 s, then 5 s up again; calls over 1 ms after it;
 *   <li>every process flushes; each key's fleet snapshot against the exact count its recorders kept
 *       (the whole row fits in the 60 s window); {@code MEMORY USAGE} of the keys;
 *   <li>the record path's tail: every {@code record} timed on its own, the fleet window's beside
 *       the in-process {@code KeyedWindows}' in the same threads, Redis up and Redis stopped.
 * </ol>
 *
 * Writes markdown to {@code --out} (default {@code benchmarks/target/keyed-fleet-report.md}).
 *
 * <p>Run: {@code java -cp benchmarks/reports/target/reports.jar
 * io.ringtail.benchmarks.report.KeyedFleetReport} (rows {@code --rows 20x1,20x50,200x20}). With
 * {@code --server-cpus 1} the server runs on CPU 1 alone; start the report under {@code taskset -c
 * 0} so that it and the simulated processes (which inherit its CPUs) stay off it, and {@code
 * SLOWLOG} counts the server's work, not its waits for a core. With {@code --server-realtime} the
 * server's threads run at real-time priority instead ({@code chrt}, as root), on whichever core is
 * free. A main, not thread-safe.
 */
public final class KeyedFleetReport {
  private static final Set<String> PUBLICATION =
      Set.of("hset", "pexpire", "zadd", "zremrangebyscore", "time");
  private static final Pattern COMMANDSTAT =
      Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+),usec=(\\d+),");

  private KeyedFleetReport() {}

  /** The command line. */
  @Command(
      name = "KeyedFleetReport",
      description =
          "Keyed fleet windows against a redis-server it starts, beside in-process KeyedWindows.")
  static final class Options {
    @Mixin
    ReportOptions common =
        ReportOptions.writing("keyed-fleet-report.md")
            .acceptSeconds(30)
            .acceptRate(200_000)
            .acceptJvms()
            .acceptServerCpus()
            .acceptServerRealtime();

    @Spec CommandSpec spec;

    String rows = "20x1,20x50,200x20";

    @Option(
        names = "--rows",
        description = "Rows: processes x windows, comma-separated (default 20x1,20x50,200x20).")
    void rows(String value) {
      if (!value.matches("[1-9][0-9]*x[1-9][0-9]*(,[1-9][0-9]*x[1-9][0-9]*)*")) {
        throw new ParameterException(
            spec.commandLine(),
            "Invalid value for option '--rows': '"
                + value
                + "' (processes x windows, comma-separated, like 20x1,200x20)");
      }
      rows = value;
    }

    @Option(names = "--threads", description = "Recording threads per JVM.")
    int threads = 2;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Path out = cli.common.out();
    String rows = cli.rows;
    long rate = cli.common.rate();
    int seconds = cli.common.wholeSeconds();
    int jvms = cli.common.jvms();
    int threads = cli.threads;
    String serverCpus = cli.common.serverCpus();
    boolean serverRealtime = cli.common.serverRealtime();
    StringBuilder cost = new StringBuilder();
    StringBuilder tails = new StringBuilder();
    StringBuilder slow =
        new StringBuilder(
            "| processes x windows | calls over 1 ms, Redis up (command: us) | Redis stopped, then"
                + " up |\n|---|---|---|\n");
    Instant began = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Path logs = out.toAbsolutePath().getParent();
    Files.createDirectories(logs);
    try (RedisProcess server = RedisProcess.start()) {
      if (serverCpus != null) {
        Machine.pin(server.pid(), serverCpus);
      }
      if (serverRealtime) {
        Machine.realtime(server.pid());
      }
      RedisClient client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
        RedisCommands<String, String> redis = connection.sync();
        redis.configSet("slowlog-log-slower-than", "1000");
        redis.configSet("slowlog-max-len", "10000");
        cost.append(
            "| processes x windows | samples/s | Redis CPU | calls/s | Redis time per process per"
                + " window per second | calls over 1 ms (up / stopped and after) | memory (keys)"
                + " | snapshot of one key while the fleet records: cold p50 / p95, warm p50 / p95"
                + " | the same after the run | count vs oracle |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        tails.append(RecordTimings.Tally.HEADER);
        for (String row : rows.split(",")) {
          String[] pw = row.split("x");
          row(
              server,
              connection,
              Integer.parseInt(pw[0]),
              Integer.parseInt(pw[1]),
              rate,
              seconds,
              jvms,
              threads,
              logs,
              cost,
              tails,
              slow);
        }
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
    }
    String report =
        "Keyed fleet report, "
            + began
            + " to "
            + Instant.now().truncatedTo(ChronoUnit.SECONDS)
            + ", "
            + Runtime.getRuntime().availableProcessors()
            + " CPUs, "
            + rate
            + " samples/s per row, "
            + seconds
            + " s with Redis up per row\n\n"
            + cost
            + "\n"
            + tails
            + "\n"
            + slow;
    System.out.println(report);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report);
  }

  private static void row(
      RedisProcess server,
      StatefulRedisConnection<String, String> connection,
      int processes,
      int windows,
      long rate,
      int seconds,
      int jvms,
      int threads,
      Path logs,
      StringBuilder cost,
      StringBuilder tails,
      StringBuilder slow)
      throws Exception {
    RedisCommands<String, String> redis = connection.sync();
    String name = "keyed-" + processes + "x" + windows + "-" + System.nanoTime();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> children = new ArrayList<>();
    List<BufferedReader> outputs = new ArrayList<>();
    List<Writer> inputs = new ArrayList<>();
    for (int j = 0; j < jvms; j++) {
      Path safepoints =
          logs.resolve("keyed-fleet-safepoints-" + processes + "x" + windows + "-" + j + ".log");
      Files.deleteIfExists(safepoints);
      Process p =
          new ProcessBuilder(
                  java,
                  "-Xmx1g",
                  "-Xlog:safepoint=info:file=" + safepoints + ":tn",
                  "-cp",
                  System.getProperty("java.class.path"),
                  KeyedFleetProcess.class.getName(),
                  "--port",
                  Integer.toString(server.port()),
                  "--name",
                  name,
                  "--processes",
                  Integer.toString(processes / jvms),
                  "--keys",
                  Integer.toString(windows),
                  "--threads",
                  Integer.toString(threads),
                  "--rate",
                  Long.toString(rate / jvms),
                  "--seed",
                  Integer.toString(j + 1),
                  "--safepoint-log",
                  safepoints.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      children.add(p);
      outputs.add(
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
      inputs.add(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
    }
    for (BufferedReader r : outputs) {
      String line;
      while ((line = r.readLine()) != null && !line.equals("READY")) {
        System.out.println(line);
      }
    }
    tell(inputs, "GO");
    Thread.sleep(5_000);
    tell(inputs, "PHASE 1");
    redis.configResetstat();
    redis.slowlogReset();
    double cpu0 = ServerReadings.cpuSeconds(redis);
    long wall0 = System.nanoTime();
    Thread.sleep(seconds * 1_000L);
    double cpu = ServerReadings.cpuSeconds(redis) - cpu0;
    double wall = (System.nanoTime() - wall0) / 1e9;
    String commandstats = redis.info("commandstats");
    long slowUp = redis.slowlogLen();
    String slowUpWhat = slowCommands(redis);
    long calls = 0;
    long usec = 0;
    Matcher m = COMMANDSTAT.matcher(commandstats);
    StringBuilder byCommand = new StringBuilder();
    while (m.find()) {
      if (PUBLICATION.contains(m.group(1))) {
        calls += Long.parseLong(m.group(2));
        usec += Long.parseLong(m.group(3));
        byCommand.append(
            String.format(
                "%s %,d calls %.2f us; ",
                m.group(1),
                Long.parseLong(m.group(2)),
                Double.parseDouble(m.group(3)) / Long.parseLong(m.group(2))));
      }
    }
    // snapshots of one key: cold (a new reader, nothing merged yet) and back to back
    RedisBackend reader =
        RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(10)).build();
    List<Long> cold = new ArrayList<>();
    List<Long> warm = new ArrayList<>();
    RedisKeyedHistogramWindows observer = snapshotLatencies(reader, name, cold, warm);
    // Redis stopped for 5 s, then up for 5 s
    redis.slowlogReset();
    tell(inputs, "PHASE 2");
    server.pause();
    Thread.sleep(5_000);
    server.resume();
    Thread.sleep(5_000);
    long slowStopped = redis.slowlogLen();
    String slowStoppedWhat = slowCommands(redis);
    tell(inputs, "END");
    Map<String, Map<Long, Long>> oracle = new HashMap<>();
    long[] stats = new long[6];
    RecordTimings.Tally tally = new RecordTimings.Tally();
    for (BufferedReader r : outputs) {
      String line;
      while ((line = r.readLine()) != null && !line.equals("DONE")) {
        String[] f = line.split(" ");
        switch (f[0]) {
          case "COUNT" ->
              oracle
                  .computeIfAbsent(f[1].replace('_', ' '), k -> new HashMap<>())
                  .merge(Long.parseLong(f[2]), Long.parseLong(f[3]), Long::sum);
          case "STATS" -> {
            for (int i = 0; i < 6; i++) {
              stats[i] += Long.parseLong(f[i + 1]);
            }
          }
          default -> {
            if (!tally.accept(f)) {
              System.out.println(line);
            }
          }
        }
      }
    }
    Map<String, WindowSnapshot> fleet = observer.snapshots();
    long exact = 0;
    long counted = 0;
    int keysWrong = 0;
    long outside = 0;
    for (Map.Entry<String, Map<Long, Long>> e : oracle.entrySet()) {
      WindowSnapshot s = fleet.get(e.getKey());
      long got = s == null ? 0 : s.count();
      long want = 0;
      for (Map.Entry<Long, Long> b : e.getValue().entrySet()) {
        // the buckets the snapshot covers: from the one holding its start to the one holding its
        // end
        if (s != null
            && b.getKey() >= Math.floorDiv(s.startNanos(), KeyedFleetProcess.WIDTH)
            && b.getKey() <= Math.floorDiv(s.endNanos(), KeyedFleetProcess.WIDTH)) {
          want += b.getValue();
        } else {
          outside += b.getValue();
        }
      }
      exact += want;
      counted += got;
      if (got != want) {
        keysWrong++;
      }
    }
    for (Process p : children) {
      p.waitFor();
    }
    // the same once the fleet has stopped: what a snapshot costs without the fleet's load
    List<Long> quietCold = new ArrayList<>();
    List<Long> quietWarm = new ArrayList<>();
    snapshotLatencies(reader, name, quietCold, quietWarm).close();
    long[] keyCount = new long[1];
    long memory = ServerReadings.memoryOf(redis, "ringtail:{" + name + "*", keyCount);
    double perWindow = usec / (double) processes / windows / wall;
    cost.append(
        String.format(
            "| %d x %d | %,d | %.1f %% of a core | %,.0f | %.1f us | %d / %d | %,d B (%,d keys) |"
                + " %.2f / %.2f ms, %.2f / %.2f ms | %.2f / %.2f ms, %.2f / %.2f ms"
                + " | %,d vs %,d, %d of %d keys off (%,d samples"
                + " recorded before the window) |%n",
            processes,
            windows,
            rate,
            100 * cpu / wall,
            calls / wall,
            perWindow,
            slowUp,
            slowStopped,
            memory,
            keyCount[0],
            FleetReport.pct(cold, 50),
            FleetReport.pct(cold, 95),
            FleetReport.pct(warm, 50),
            FleetReport.pct(warm, 95),
            FleetReport.pct(quietCold, 50),
            FleetReport.pct(quietCold, 95),
            FleetReport.pct(quietWarm, 50),
            FleetReport.pct(quietWarm, 95),
            counted,
            exact,
            keysWrong,
            oracle.size(),
            outside));
    slow.append(
        String.format("| %d x %d | %s | %s |%n", processes, windows, slowUpWhat, slowStoppedWhat));
    System.out.printf(
        "row %dx%d: %s published %d, failed calls %d, retried duplicates %d, dropped %d, expired %d,"
            + " pending %d%n",
        processes, windows, byCommand, stats[0], stats[1], stats[2], stats[3], stats[4], stats[5]);
    String row = processes + " x " + windows;
    tally.appendRows(tails, 1, row, "up");
    tally.appendRows(tails, 2, row, "stopped 5 s, then up 5 s");
  }

  /** The slow log's entries as {@code command: microseconds}, newest first. */
  private static String slowCommands(RedisCommands<String, String> redis) {
    StringBuilder b = new StringBuilder();
    for (Object entry : redis.slowlogGet(1000)) {
      List<?> e = (List<?>) entry;
      Object args = e.get(3);
      String command = args instanceof List<?> a && !a.isEmpty() ? a.get(0).toString() : "?";
      b.append(b.length() == 0 ? "" : ", ").append(command).append(": ").append(e.get(2));
    }
    return b.length() == 0 ? "none" : b.toString();
  }

  /**
   * Times 20 snapshots of one key by new readers ({@code cold}), then up to 200 back to back by one
   * ({@code warm}, for 10 s at most); returns that reader.
   */
  private static RedisKeyedHistogramWindows snapshotLatencies(
      RedisBackend reader, String name, List<Long> cold, List<Long> warm) {
    for (int i = 0; i < 20; i++) {
      RedisKeyedHistogramWindows w =
          reader.keyedHistogramWindows(name).config(KeyedFleetProcess.config()).build();
      long t = System.nanoTime();
      w.snapshot(KeyedFleetProcess.key(0));
      cold.add(System.nanoTime() - t);
      w.close();
    }
    RedisKeyedHistogramWindows observer =
        reader.keyedHistogramWindows(name).config(KeyedFleetProcess.config()).build();
    long until = System.nanoTime() + 10_000_000_000L;
    for (int i = 0; i < 200 && (i < 20 || System.nanoTime() < until); i++) {
      long t = System.nanoTime();
      observer.snapshot(KeyedFleetProcess.key(0));
      warm.add(System.nanoTime() - t);
    }
    return observer;
  }

  private static void tell(List<Writer> inputs, String line) throws Exception {
    for (Writer w : inputs) {
      w.write(line + "\n");
      w.flush();
    }
  }
}
