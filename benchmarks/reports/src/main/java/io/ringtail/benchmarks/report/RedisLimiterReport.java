package io.ringtail.benchmarks.report;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
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
 *       phase, Redis CPU ({@code INFO cpu}, user + system) per decision and the commands per
 *       decision ({@code INFO commandstats}, top-level commands only).
 *   <li>Server time per decision: {@code SLOWLOG} (every top-level command, one thread) gives the
 *       µs Redis spends per decision, commands inside scripts included once.
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
 * <p>Run: {@code benchmarks/redis-limiters.sh [--seconds 3] [--docs FILE]}. About 3 minutes on 2
 * cores. A main; not thread-safe.
 */
public final class RedisLimiterReport {
  static final String BEGIN = "<!-- redis-limiters:begin -->";
  static final String END = "<!-- redis-limiters:end -->";
  static final int LIMIT = 100;
  static final Duration WINDOW = Duration.ofSeconds(1);
  static final Duration MEMORY_WINDOW = Duration.ofMinutes(1);
  static final int KEYS = 10_000;
  static final int MANY_THREADS = 8;

  private RedisLimiterReport() {}

  /** One throughput phase's figures. */
  record Phase(
      double decisionsPerSecond,
      double p50Micros,
      double p99Micros,
      double admittedShare,
      double redisCpuMicros,
      String commands) {}

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
    long[] schedule = schedule();

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
        version = field(redis.info("server"), "redis_version");
        for (RedisLimiter.Factory factory : RedisLimiter.CONTENDERS) {
          String label;
          String algorithm;
          try (RedisLimiter probe = factory.open(server.uri(), LIMIT, WINDOW)) {
            label = probe.label();
            algorithm = probe.algorithm();
          }
          List<String> cells = new ArrayList<>();
          for (String[] keySet : List.of(hot, keys)) {
            for (int threads : new int[] {1, MANY_THREADS}) {
              redis.flushall();
              try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, WINDOW)) {
                Phase p = phase(limiter, redis, keySet, threads, seconds);
                cells.add(Format.fmt("%,.0f / %s", p.decisionsPerSecond(), micros(p.p99Micros())));
                costs.append(
                    Format.fmt(
                        "| %s | %s, %d thread%s | %,.0f | %s / %s | %.0f %% | %.1f µs | %s |%n",
                        label,
                        keySet.length == 1 ? "hot key" : Format.fmt("%,d keys", KEYS),
                        threads,
                        threads == 1 ? "" : "s",
                        p.decisionsPerSecond(),
                        micros(p.p50Micros()),
                        micros(p.p99Micros()),
                        100 * p.admittedShare(),
                        p.redisCpuMicros(),
                        p.commands()));
              }
            }
          }
          redis.flushall();
          ServerTime hotTime;
          ServerTime manyTime;
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, WINDOW)) {
            hotTime = serverTime(limiter, redis, hot, 3_000);
            manyTime = serverTime(limiter, redis, keys, 3_000);
          }
          serverTimes.append(
              Format.fmt(
                  "| %s | %.1f µs (%s) | %.1f µs (%s) |%n",
                  label,
                  hotTime.micros(),
                  hotTime.commands(),
                  manyTime.micros(),
                  manyTime.commands()));
          double[] bytes = new double[2];
          redis.flushall();
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, MEMORY_WINDOW)) {
            bytes[0] = bytesPerKey(limiter, redis, "one-", 1_000, 1);
          }
          redis.flushall();
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, MEMORY_WINDOW)) {
            bytes[1] = bytesPerKey(limiter, redis, "full-", 200, LIMIT);
          }
          redis.flushall();
          int[] perSecond;
          int slidingMax;
          int admitted;
          try (RedisLimiter limiter = factory.open(server.uri(), LIMIT, WINDOW)) {
            long[] admittedAt = runSchedule(limiter, schedule);
            admitted = admittedAt.length;
            perSecond = new int[(int) (schedule[schedule.length - 1] / 1_000_000_000L) + 1];
            for (long t : admittedAt) {
              perSecond[(int) Math.min(perSecond.length - 1, t / 1_000_000_000L)]++;
            }
            slidingMax = slidingMax(admittedAt, WINDOW.toNanos());
          }
          throughput.append(
              Format.fmt(
                  "| %s | %s | %s | %.1f µs / %.1f µs | %,.0f B / %,.0f B |%n",
                  label,
                  algorithm,
                  String.join(" | ", cells),
                  hotTime.micros(),
                  manyTime.micros(),
                  bytes[0],
                  bytes[1]));
          List<String> counts = new ArrayList<>();
          for (int c : perSecond) {
            counts.add(Integer.toString(c));
          }
          admission.append(
              Format.fmt(
                  "| %s | %s | %d of %d | %s%d%s |%n",
                  label,
                  String.join(", ", counts),
                  admitted,
                  schedule.length,
                  slidingMax > LIMIT ? "**" : "",
                  slidingMax,
                  slidingMax > LIMIT ? "**" : ""));
        }
      } finally {
        admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }

    StringBuilder md = new StringBuilder();
    md.append(
        Format.fmt(
            "Limit %d requests per second per key for every contender. Decisions/s and p99 client "
                + "latency per cell; server time per decision from `SLOWLOG`; memory per key from "
                + "`MEMORY USAGE` (limiters at 100 per minute there, so that no key expires before "
                + "it is read).%n%n",
            LIMIT));
    md.append(
        Format.fmt(
            "| limiter | algorithm | hot key, 1 thread | hot key, %d threads | %,d keys, 1 thread "
                + "| %,d keys, %d threads | Redis time per decision, hot key / %,d keys | memory per key, 1 request / %d "
                + "requests |%n",
            MANY_THREADS, KEYS, KEYS, MANY_THREADS, KEYS, LIMIT));
    md.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
        .append(throughput)
        .append('\n');
    md.append(
        "Redis time per decision from `SLOWLOG` (one thread, 3,000 decisions, every top-level command's "
            + "duration; what a script calls inside counts once, in the script's time), with the top-level "
            + "commands per decision.\n\n");
    md.append("| limiter | hot key | 10,000 keys |\n| --- | --- | --- |\n")
        .append(serverTimes)
        .append('\n');
    md.append(
        "Every throughput phase: decisions/s, client latency p50 / p99, share admitted, Redis process CPU "
            + "per decision (`INFO cpu`, user + system: command execution and network I/O), and the commands Redis "
            + "executed per decision (`INFO commandstats`: commands called inside a script are counted there too, "
            + "beside the script).\n\n");
    md.append(
            "| limiter | phase | decisions/s | p50 / p99 | admitted | Redis CPU per decision | commands per decision |\n")
        .append("| --- | --- | ---: | ---: | ---: | ---: | --- |\n")
        .append(costs)
        .append('\n');
    md.append(
        Format.fmt(
            "Admission on one schedule (%d requests on one key: 80/s for 2 s, idle to 2.9 s, 300 "
                + "between 2.9 s and 3.1 s, 250/s to 6 s): admitted in each 1 s interval from the start, and the most "
                + "admitted in any sliding 1 s (limit %d).%n%n",
            schedule.length, LIMIT));
    md.append(
            "| limiter | admitted per 1 s interval | admitted in all | most in any sliding 1 s |\n")
        .append("| --- | --- | ---: | ---: |\n")
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

  /** {@code threads} threads deciding on {@code keys} for {@code seconds} after a warm-up. */
  static Phase phase(
      RedisLimiter limiter,
      RedisCommands<String, String> redis,
      String[] keys,
      int threads,
      double seconds)
      throws InterruptedException {
    // Warm-up: every key once (split between the threads), then one more second of load.
    run(limiter, keys, threads, Math.max(1, keys.length / threads), 1.0);
    redis.configResetstat();
    double cpuBefore = cpuSeconds(redis);
    long t0 = System.nanoTime();
    Result r = run(limiter, keys, threads, 0, seconds);
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double cpu = cpuSeconds(redis) - cpuBefore;
    Map<String, long[]> stats = commandStats(redis);
    List<String> commands = new ArrayList<>();
    for (Map.Entry<String, long[]> e : stats.entrySet()) {
      if (!e.getKey().equals("info") && !e.getKey().equals("config|resetstat")) {
        commands.add(Format.fmt("%s %.2f", e.getKey(), (double) e.getValue()[0] / r.decisions));
      }
    }
    return new Phase(
        r.decisions / elapsed,
        r.latency.getValueAtPercentile(50) / 1e3,
        r.latency.getValueAtPercentile(99) / 1e3,
        (double) r.admitted / r.decisions,
        1e6 * cpu / r.decisions,
        String.join(", ", commands));
  }

  private record Result(long decisions, long admitted, Histogram latency) {}

  /**
   * Runs {@code threads} threads, each first making {@code minimumCalls} decisions and then
   * deciding until {@code seconds} have passed since the start.
   */
  private static Result run(
      RedisLimiter limiter, String[] keys, int threads, int minimumCalls, double seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Histogram[] latencies = new Histogram[threads];
    long[] decisions = new long[threads];
    long[] admitted = new long[threads];
    AtomicBoolean failed = new AtomicBoolean();
    CountDownLatch done = new CountDownLatch(threads);
    List<Throwable> errors = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      latencies[t] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      Thread thread =
          new Thread(
              () -> {
                try {
                  int next = (int) ((long) id * keys.length / threads);
                  long n = 0;
                  long yes = 0;
                  while (!failed.get() && (n < minimumCalls || System.nanoTime() < deadline)) {
                    String key = keys[next];
                    next = next + 1 == keys.length ? 0 : next + 1;
                    long s = System.nanoTime();
                    boolean ok = limiter.tryAcquire(key);
                    latencies[id].recordValue(System.nanoTime() - s);
                    n++;
                    if (ok) {
                      yes++;
                    }
                  }
                  decisions[id] = n;
                  admitted[id] = yes;
                } catch (Throwable e) {
                  failed.set(true);
                  synchronized (errors) {
                    errors.add(e);
                  }
                } finally {
                  done.countDown();
                }
              },
              "limiter-client-" + t);
      thread.start();
    }
    done.await();
    if (!errors.isEmpty()) {
      throw new IllegalStateException("a client thread failed", errors.get(0));
    }
    Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    long total = 0;
    long yes = 0;
    for (int t = 0; t < threads; t++) {
      all.add(latencies[t]);
      total += decisions[t];
      yes += admitted[t];
    }
    return new Result(total, yes, all);
  }

  /** Redis time per decision and the top-level commands behind it, from SLOWLOG. */
  record ServerTime(double micros, String commands) {}

  /** Every top-level command's duration from SLOWLOG over {@code n} decisions from one thread. */
  static ServerTime serverTime(
      RedisLimiter limiter, RedisCommands<String, String> redis, String[] keys, int n) {
    for (int i = 0; i < Math.min(n, keys.length); i++) {
      limiter.tryAcquire(keys[i]);
    }
    redis.configSet("slowlog-max-len", Integer.toString(20 * n));
    redis.configSet("slowlog-log-slower-than", "0");
    redis.slowlogReset();
    for (int i = 0; i < n; i++) {
      limiter.tryAcquire(keys[i % keys.length]);
    }
    redis.configSet("slowlog-log-slower-than", "10000");
    long micros = 0;
    Map<String, Integer> calls = new TreeMap<>();
    for (Object entry : redis.slowlogGet(20 * n)) {
      List<?> e = (List<?>) entry;
      List<?> command = (List<?>) e.get(3);
      String name = String.valueOf(command.get(0)).toLowerCase(Locale.ROOT);
      // Redis 7 logs what a script calls too, from client "?:0": the script's own entry covers it.
      boolean insideScript = e.size() > 4 && String.valueOf(e.get(4)).startsWith("?");
      if (!insideScript && !name.equals("config") && !name.equals("slowlog")) {
        micros += (Long) e.get(2);
        calls.merge(name, 1, Integer::sum);
      }
    }
    redis.slowlogReset();
    List<String> perDecision = new ArrayList<>();
    calls.forEach((name, c) -> perDecision.add(Format.fmt("%s %.2f", name, (double) c / n)));
    return new ServerTime((double) micros / n, String.join(", ", perDecision));
  }

  /** Mean bytes ({@code MEMORY USAGE}) over every key in the database, per limited key. */
  static double bytesPerKey(
      RedisLimiter limiter,
      RedisCommands<String, String> redis,
      String prefix,
      int keys,
      int requestsEach) {
    for (int k = 0; k < keys; k++) {
      for (int i = 0; i < requestsEach; i++) {
        limiter.tryAcquire(prefix + k);
      }
    }
    long bytes = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.limit(1_000));
      for (String key : page.getKeys()) {
        Long usage = redis.memoryUsage(key);
        bytes += usage == null ? 0 : usage;
      }
      cursor = page;
    } while (!cursor.isFinished());
    return (double) bytes / keys;
  }

  /** Request times (ns from the start) of the admission schedule. */
  static long[] schedule() {
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < 160; i++) {
      times.add(i * 1_000_000_000L / 80);
    }
    for (int i = 0; i < 300; i++) {
      times.add(2_900_000_000L + i * 200_000_000L / 300);
    }
    for (int i = 0; i < 725; i++) {
      times.add(3_100_000_000L + i * 1_000_000_000L / 250);
    }
    return times.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * Sends one request per schedule time on one key; the send times (ns from the start) of those
   * admitted.
   */
  static long[] runSchedule(RedisLimiter limiter, long[] schedule) {
    limiter.tryAcquire("warm-up");
    long start = System.nanoTime();
    long[] admitted = new long[schedule.length];
    int n = 0;
    for (long at : schedule) {
      long wait;
      while ((wait = start + at - System.nanoTime()) > 0) {
        if (wait > 200_000) {
          LockSupport.parkNanos(wait - 100_000);
        }
      }
      long sent = System.nanoTime() - start;
      if (limiter.tryAcquire("schedule")) {
        admitted[n++] = sent;
      }
    }
    return Arrays.copyOf(admitted, n);
  }

  /** The most of {@code times} (sorted) inside any half-open interval of {@code width}. */
  static int slidingMax(long[] times, long width) {
    int max = 0;
    int from = 0;
    for (int to = 0; to < times.length; to++) {
      while (times[to] - times[from] >= width) {
        from++;
      }
      max = Math.max(max, to - from + 1);
    }
    return max;
  }

  private static double cpuSeconds(RedisCommands<String, String> redis) {
    String info = redis.info("cpu");
    return Double.parseDouble(field(info, "used_cpu_user"))
        + Double.parseDouble(field(info, "used_cpu_sys"));
  }

  /** Calls and µs per command since the last reset, the commands scripts call included. */
  private static Map<String, long[]> commandStats(RedisCommands<String, String> redis) {
    Map<String, long[]> all = new TreeMap<>();
    for (String line : redis.info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        long calls = Long.parseLong(line.replaceAll(".*:calls=(\\d+).*", "$1"));
        long usec = Long.parseLong(line.replaceAll(".*[:,]usec=(\\d+).*", "$1"));
        all.put(name, new long[] {calls, usec});
      }
    }
    return all;
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    throw new IllegalStateException("INFO has no " + name + ": " + info);
  }

  private static String micros(double v) {
    return v >= 1000 ? Format.fmt("%.1f ms", v / 1000) : Format.fmt("%.0f µs", v);
  }
}
