package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.benchmarks.redis.RedisLimiter;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.DocsBlock;
import io.ringtail.benchmarks.toolkit.Format;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.redis.testkit.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Distributed rate limiters side by side on one {@code redis-server} that this report starts on a
 * free 127.0.0.1 port, every contender of {@link RedisLimiter#CONTENDERS} limiting each key to
 * {@value #LIMIT} requests per second:
 *
 * <ol>
 *   <li>Throughput and latency: decisions/s and p50/p99 client latency with 1 and {@value
 *       #MANY_THREADS} client threads, on one hot key and on {@value #KEYS} keys (each thread walks
 *       the keys round-robin from its own offset), after a warm-up that touches every key. Per
 *       phase, Redis time per decision (each command's {@code INFO commandstats} time at the share
 *       of its calls that are top-level, from a {@code SLOWLOG} sample before the phase), Redis CPU
 *       ({@code INFO cpu}, user + system) and the commands per decision. Every phase at the limit
 *       and again at {@value #LARGE_LIMIT}, a limit no key reaches (every decision admitted).
 *   <li>Memory per key ({@code MEMORY USAGE} of every key in the database): after one request on
 *       each of 1,000 keys, and after {@value #LIMIT} requests (the limit) on each of 200 keys.
 *       These limiters allow {@value #LIMIT} per minute, not per second, so that no key expires
 *       idle before the report reads it; what a key holds at its limit does not depend on the
 *       window.
 *   <li>Admission on one fixed request schedule, the same for every contender: 80/s for 2 s (under
 *       the limit), 0.9 s idle, a burst of 300 in the 200 ms around the 3 s mark, then 250/s to 6
 *       s. Admitted counts in every 1 s interval from the start, and the most admitted in any
 *       sliding 1 s (client send times); an exact limiter never exceeds {@value #LIMIT}.
 * </ol>
 *
 * The database is flushed and a fresh client opened before every phase. Prints a markdown table,
 * writes it to {@code --out} (default {@code benchmarks/target/redis-limiters.md}); each {@code
 * --docs FILE} replaces the block between {@value #BEGIN} and {@value #END}.
 *
 * <p>Run: {@code benchmarks/redis-limiters.sh [--seconds 3] [--docs FILE]}. About 4 minutes on 2
 * cores. A main; not thread-safe.
 */
public final class RedisLimiterReport {
  static final String BEGIN = "<!-- redis-limiters:begin -->";
  static final String END = "<!-- redis-limiters:end -->";
  static final int LIMIT = 100;

  /** A limit no key reaches in a run: the server time of decisions that all admit. */
  static final int LARGE_LIMIT = 1_000_000;

  static final Duration WINDOW = Duration.ofSeconds(1);
  static final Duration MEMORY_WINDOW = Duration.ofMinutes(1);
  static final int KEYS = 10_000;
  static final int MANY_THREADS = 8;

  private RedisLimiterReport() {}

  /** The command line. */
  @Command(
      name = "RedisLimiterReport",
      description = "The Redis rate limiters beside Bucket4j and Redisson.")
  static final class Options {
    @Mixin
    ReportOptions common =
        ReportOptions.writing("redis-limiters.md")
            .acceptDocs()
            .acceptSeconds(3.0)
            .acceptServerCpus();
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Path out = cli.common.out();
    List<Path> docs = cli.common.docs();
    double seconds = cli.common.seconds();
    String serverCpus = cli.common.serverCpus();
    long started = System.nanoTime();
    String loadAtStart = Machine.loadAverage();
    String[] keys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "tenant-" + i;
    }
    String[] hot = {"tenant-hot"};
    long[] schedule = LimiterMeasurements.schedule();

    StringBuilder throughput = new StringBuilder();
    StringBuilder costs = new StringBuilder();
    StringBuilder serverTimes = new StringBuilder();
    StringBuilder admission = new StringBuilder();
    String version;
    try (RedisProcess server = RedisProcess.start()) {
      if (serverCpus != null) {
        Machine.pin(server.pid(), serverCpus);
      }
      RedisClient admin = RedisClient.create();
      try (StatefulRedisConnection<String, String> connection = admin.connect(server.uri())) {
        RedisCommands<String, String> redis = connection.sync();
        version = LimiterMeasurements.field(redis.info("server"), "redis_version");
        for (RedisLimiter.Factory factory : RedisLimiter.CONTENDERS) {
          String label;
          String algorithm;
          try (RedisLimiter probe = factory.open(server.uri(), LIMIT, WINDOW)) {
            label = probe.label();
            algorithm = probe.algorithm();
          }
          List<String> cells = new ArrayList<>();
          List<String> redisTimes = new ArrayList<>();
          for (int limit : new int[] {LIMIT, LARGE_LIMIT}) {
            for (String[] keySet : List.of(hot, keys)) {
              for (int threads : new int[] {1, MANY_THREADS}) {
                redis.flushall();
                try (RedisLimiter limiter = factory.open(server.uri(), limit, WINDOW)) {
                  LimiterMeasurements.Phase p =
                      LimiterMeasurements.phase(limiter, redis, keySet, threads, seconds);
                  if (limit == LIMIT) {
                    cells.add(
                        Format.fmt("%,.0f / %s", p.decisionsPerSecond(), micros(p.p99Micros())));
                  }
                  redisTimes.add(Format.fmt("%.1f µs", p.redisMicros()));
                  costs.append(
                      Format.fmt(
                          "| %s | %s, %d thread%s, limit %,d | %,.0f | %s / %s | %.0f %% | %.1f µs | %.1f µs | %s |%n",
                          label,
                          keySet.length == 1 ? "hot key" : Format.fmt("%,d keys", KEYS),
                          threads,
                          threads == 1 ? "" : "s",
                          limit,
                          p.decisionsPerSecond(),
                          micros(p.p50Micros()),
                          micros(p.p99Micros()),
                          100 * p.admittedShare(),
                          p.redisMicros(),
                          p.redisCpuMicros(),
                          p.commands()));
                }
              }
            }
          }
          serverTimes.append(Format.fmt("| %s | %s |%n", label, String.join(" | ", redisTimes)));
          double[] bytes = new double[2];
          redis.flushall();
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, MEMORY_WINDOW)) {
            bytes[0] = LimiterMeasurements.bytesPerKey(limiter, redis, "one-", 1_000, 1);
          }
          redis.flushall();
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, MEMORY_WINDOW)) {
            bytes[1] = LimiterMeasurements.bytesPerKey(limiter, redis, "full-", 200, LIMIT);
          }
          redis.flushall();
          int[] perSecond;
          int[] slidingMax;
          int admitted;
          long longestRoundTrip;
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, WINDOW)) {
            LimiterMeasurements.Admissions run = LimiterMeasurements.runSchedule(limiter, schedule);
            long[] admittedAt = run.sentAt();
            admitted = admittedAt.length;
            longestRoundTrip = run.longestRoundTrip();
            perSecond = new int[(int) (schedule[schedule.length - 1] / 1_000_000_000L) + 1];
            for (long t : admittedAt) {
              perSecond[(int) Math.min(perSecond.length - 1, t / 1_000_000_000L)]++;
            }
            slidingMax = run.slidingMaxBounds(WINDOW.toNanos());
          }
          throughput.append(
              Format.fmt(
                  "| %s | %s | %s | %s / %s | %,.0f B / %,.0f B |%n",
                  label,
                  algorithm,
                  String.join(" | ", cells),
                  redisTimes.get(2),
                  redisTimes.get(3),
                  bytes[0],
                  bytes[1]));
          List<String> counts = new ArrayList<>();
          for (int c : perSecond) {
            counts.add(Integer.toString(c));
          }
          admission.append(
              Format.fmt(
                  "| %s | %s | %d of %d | %s%s%s | %.1f ms |%n",
                  label,
                  String.join(", ", counts),
                  admitted,
                  schedule.length,
                  slidingMax[0] > LIMIT ? "**" : "",
                  slidingMax[0] == slidingMax[1]
                      ? Integer.toString(slidingMax[0])
                      : slidingMax[0] + " to " + slidingMax[1],
                  slidingMax[0] > LIMIT ? "**" : "",
                  longestRoundTrip / 1e6));
        }
      } finally {
        admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }

    StringBuilder md = new StringBuilder();
    md.append(
        Format.fmt(
            "Limit %d requests per second per key for every contender. Decisions/s and p99 client "
                + "latency per cell; Redis time per decision (below) on %,d keys; memory per key from "
                + "`MEMORY USAGE` (limiters at 100 per minute there, so that no key expires before "
                + "it is read).%n%n",
            LIMIT, KEYS));
    md.append(
        Format.fmt(
            "| limiter | algorithm | hot key, 1 thread | hot key, %d threads | %,d keys, 1 thread "
                + "| %,d keys, %d threads | Redis time per decision, 1 / %d threads | memory per key, 1 request / %d "
                + "requests |%n",
            MANY_THREADS, KEYS, KEYS, MANY_THREADS, MANY_THREADS, LIMIT));
    md.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
        .append(throughput)
        .append('\n');
    md.append(
        Format.fmt(
            "Redis time per decision in every throughput phase: each command's time from `INFO "
                + "commandstats` (a script's time covers what it calls), counted at the share of its calls "
                + "that are top-level, which a `SLOWLOG` sample of %,d decisions before the phase gives "
                + "(Redis 7 logs what a script calls too, as client `?:0`). `SLOWLOG` is off while the phase "
                + "is measured: logging every command a script calls would add to the script's time. At the "
                + "limit of %d, and at a limit no key reaches in the run (every decision admitted).%n%n",
            LimiterMeasurements.SAMPLE, LIMIT));
    md.append(
            Format.fmt(
                "| limiter | hot key, 1 thread | hot key, %1$d threads | %2$,d keys, 1 thread | %2$,d keys, %1$d threads "
                    + "| hot key, 1 thread, limit %3$,d | hot key, %1$d threads, limit %3$,d "
                    + "| %2$,d keys, 1 thread, limit %3$,d | %2$,d keys, %1$d threads, limit %3$,d |%n",
                MANY_THREADS, KEYS, LARGE_LIMIT))
        .append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
        .append(serverTimes)
        .append('\n');
    md.append(
        "Every throughput phase: decisions/s, client latency p50 / p99, share admitted, Redis time per "
            + "decision (above), Redis process CPU "
            + "per decision (`INFO cpu`, user + system: command execution and network I/O), and the commands Redis "
            + "executed per decision (`INFO commandstats`: commands called inside a script are counted there too, "
            + "beside the script).\n\n");
    md.append(
            "| limiter | phase | decisions/s | p50 / p99 | admitted | Redis time per decision | Redis CPU per decision | commands per decision |\n")
        .append("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
        .append(costs)
        .append('\n');
    md.append(
        Format.fmt(
            "Admission on one schedule (%d requests on one key: 80/s for 2 s, idle to 2.9 s, 300 "
                + "between 2.9 s and 3.1 s, 250/s to 6 s, from one thread): admitted in each 1 s interval from the "
                + "start, and the most admitted in any sliding 1 s (limit %d) of the times the limiter decided at."
                + " A decision's time lies within the request's round trip (Ringtail's client estimates the"
                + " server's clock from the previous reply: up to one round trip before the send), so the"
                + " send times bound it: the busiest interval of send times narrower than 1 s by twice the"
                + " longest round trip, to the busiest one as much wider; bold where even the first exceeds"
                + " the limit.%n%n",
            schedule.length, LIMIT));
    md.append(
            "| limiter | admitted per 1 s interval | admitted in all | most in any sliding 1 s | longest round trip |\n")
        .append("| --- | --- | ---: | ---: | ---: |\n")
        .append(admission)
        .append('\n');
    md.append(
        Format.fmt(
            "Machine: %d cores, %s %s, Redis %s (server and clients on the same machine%s); load average "
                + "%s at the start, %s at the end. Run %s, %d s; %.0f s per throughput phase after a warm-up that "
                + "touches every key. Command: `benchmarks/redis-limiters.sh%s`.%n",
            Machine.cores(),
            System.getProperty("java.vm.name"),
            System.getProperty("java.vm.version"),
            version,
            serverCpus == null
                ? ""
                : ", the server on CPUs " + serverCpus + " and the clients off them",
            loadAtStart,
            Machine.loadAverage(),
            Instant.now().truncatedTo(ChronoUnit.MINUTES),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
            seconds,
            serverCpus == null ? "" : " --server-cpus " + serverCpus));

    String markdown = md.toString();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println(markdown);
    System.out.println("Written to " + out);
    for (Path doc : docs) {
      DocsBlock.replace(doc, BEGIN, END, markdown);
    }
  }

  private static String micros(double v) {
    return v >= 1000 ? Format.fmt("%.1f ms", v / 1000) : Format.fmt("%.0f µs", v);
  }
}
