package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.ManualTimeSource;
import io.ringtail.benchmarks.redis.RedisBenchmark;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.DocsBlock;
import io.ringtail.benchmarks.toolkit.Format;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.Markdown;
import io.ringtail.benchmarks.toolkit.RedisKeys;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.RedisProcess;
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
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The Redis backend's performance targets measured in one run on one fresh {@code redis-server}
 * that this report starts on a free 127.0.0.1 port:
 *
 * <ol>
 *   <li>{@code redis-benchmark} (from the PATH; Debian: {@code apt-get install redis-tools})
 *       driving {@code window_record.lua} by EVALSHA with the library's arguments, 50 clients,
 *       random member per sample: one sample per call ({@code -P 16} and {@code -P 1}) and 256
 *       samples per call (the library's batch), {@code -P 16}.
 *   <li>{@link RedisBenchmark#ingest} under JMH (one forked JVM, one thread, one connection)
 *       against the same server: {@code RedisRollingWindow.record} throughput.
 *   <li>{@code redis-benchmark} at one and at 256 samples per call ({@code -P 16}) again, so
 *       machine drift shows.
 *   <li>{@link RedisBenchmark#query} under JMH: {@code snapshot(95)} latency percentiles at 1k and
 *       100k samples; then 2 x {@code queries} snapshots interleaved between a 1k and a 100k window
 *       with the server time of each from {@code SLOWLOG}.
 *   <li>Memory per sample ({@code MEMORY USAGE}) of the window, the rate limiter and the threshold
 *       detector.
 * </ol>
 *
 * The query target is judged on the interleaved client p95 (both sizes see the same machine noise)
 * and on JMH's p95. The ingest ratio divides the JVM's samples/s by the better of the two {@code
 * redis-benchmark} figures at the same batch size. Prints a markdown table and writes it to {@code
 * --out} (default {@code benchmarks/target/redis-report.md}); each {@code --docs FILE} (repeatable)
 * replaces the block between {@value #BEGIN} and {@value #END} in that file.
 *
 * <p>Run: {@code java -cp benchmarks/reports/target/reports.jar
 * io.ringtail.benchmarks.report.RedisReport [--samples 200000] [--queries 3000] [--out FILE]
 * [--docs FILE]...} (or {@code benchmarks/run-report.sh --redis-only}). About 90 s on 2 cores. Not
 * thread-safe; a main.
 */
public final class RedisReport {
  static final String BEGIN = "<!-- redis-report:begin -->";
  static final String END = "<!-- redis-report:end -->";

  /** Samples per script call when the library batches: {@code RedisRollingWindow}'s MAX_BATCH. */
  static final int BATCH = 256;

  private RedisReport() {}

  /** The command line. */
  @Command(
      name = "RedisReport",
      description = "The raw Redis window against a redis-server it starts.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.writing("redis-report.md").acceptDocs();

    @Option(names = "--samples", description = "Samples in the window.")
    int samples = 200_000;

    @Option(names = "--queries", description = "Queries timed.")
    int queries = 3_000;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Path out = cli.common.out();
    List<Path> docs = cli.common.docs();
    int samples = cli.samples;
    int queries = cli.queries;
    long started = System.nanoTime();
    String loadAtStart = Machine.loadAverage();
    StringBuilder md = new StringBuilder();
    try (RedisProcess server = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(10)));
      try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
        RedisCommands<String, String> redis = connection.sync();
        String version =
            redis
                .info("server")
                .lines()
                .filter(l -> l.startsWith("redis_version"))
                .findFirst()
                .orElse("?")
                .trim();
        RedisBackend backend =
            RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(10)).build();

        // redis-benchmark, the library's record script (its SHA-1 as the library sends it) and
        // arguments (server time), one sample or BATCH per call.
        String[] keys = RedisKeys.window("ringtail", "bench-redis-benchmark");
        RedisRollingWindow probe = backend.window("bench-redis-benchmark").build();
        String recordSha =
            ScriptSlowlog.sha(
                redis,
                keys[0],
                () -> {
                  probe.record(1);
                  probe.flush(Duration.ofSeconds(10));
                });
        redis.del(keys);
        List<String> script = new ArrayList<>(List.of("EVALSHA", recordSha, "4"));
        script.addAll(Arrays.asList(keys));
        script.addAll(
            List.of(
                "60000000",
                "500",
                "5000",
                "10000000",
                "61000",
                "",
                "-1",
                "",
                "0000000000000000042:__rand_int__",
                "42"));
        List<String> batched = new ArrayList<>(script.subList(0, script.size() - 3));
        for (int i = 0; i < BATCH; i++) {
          batched.addAll(List.of("", "0000000000000000042:" + i + "-__rand_int__", "42"));
        }
        double benchP16 =
            RedisBenchmarkProcess.requestsPerSecond(server.port(), samples, 16, script);
        redis.del(keys);
        double benchP1 = RedisBenchmarkProcess.requestsPerSecond(server.port(), samples, 1, script);
        redis.del(keys);
        // 4x the samples at 256 per call: fewer calls would be mostly the 50 clients' start-up.
        int batchedCalls = 4 * samples / BATCH;
        double benchBatched =
            BATCH
                * RedisBenchmarkProcess.requestsPerSecond(server.port(), batchedCalls, 16, batched);
        redis.del(keys);

        // One JVM (JMH fork), one thread, one connection, RedisRollingWindow.record on this server.
        RunResult ingest =
            only(
                new Runner(
                        new OptionsBuilder()
                            .include(RedisBenchmark.class.getName() + ".ingest$")
                            .forks(1)
                            .warmupIterations(2)
                            .warmupTime(TimeValue.seconds(2))
                            .measurementIterations(5)
                            .measurementTime(TimeValue.seconds(2))
                            .jvmArgsAppend(
                                "-D" + RedisBenchmark.PORT_PROPERTY + "=" + server.port())
                            .shouldFailOnError(true)
                            .build())
                    .run());
        double javaRate = ingest.getPrimaryResult().getScore();
        double javaError = ingest.getPrimaryResult().getScoreError();

        double benchP16After =
            RedisBenchmarkProcess.requestsPerSecond(server.port(), samples, 16, script);
        redis.del(keys);
        double benchBatchedAfter =
            BATCH
                * RedisBenchmarkProcess.requestsPerSecond(server.port(), batchedCalls, 16, batched);
        redis.del(keys);
        double benchOne = Math.max(benchP16, benchP16After);
        double benchMany = Math.max(benchBatched, benchBatchedAfter);

        // P95 query latency under JMH at 1k and 100k samples.
        Collection<RunResult> query =
            new Runner(
                    new OptionsBuilder()
                        .include(RedisBenchmark.class.getName() + ".query$")
                        .param("samples", "1000", "100000")
                        .forks(1)
                        .warmupIterations(2)
                        .warmupTime(TimeValue.seconds(1))
                        .measurementIterations(5)
                        .measurementTime(TimeValue.seconds(1))
                        .jvmArgsAppend("-D" + RedisBenchmark.PORT_PROPERTY + "=" + server.port())
                        .shouldFailOnError(true)
                        .build())
                .run();
        Map<Integer, double[]> jmhQuery = new HashMap<>();
        for (RunResult r : query) {
          var stats = r.getPrimaryResult().getStatistics();
          jmhQuery.put(
              Integer.parseInt(r.getParams().getParam("samples")),
              new double[] {stats.getPercentile(50), stats.getPercentile(95), stats.getN()});
        }

        // Interleaved, so machine noise hits both alike; server time per call from SLOWLOG.
        RedisRollingWindow small = RedisBenchmark.filled(backend, "bench-1k", 1_000);
        RedisRollingWindow large = RedisBenchmark.filled(backend, "bench-100k", 100_000);
        String smallKey = RedisKeys.window("ringtail", "bench-1k")[0];
        String snapshotSha = ScriptSlowlog.sha(redis, smallKey, () -> small.snapshot(95));
        redis.configSet("slowlog-log-slower-than", "0");
        redis.configSet("slowlog-max-len", Integer.toString(4 * queries + 100));
        for (int i = 0; i < 500; i++) {
          small.snapshot(95);
          large.snapshot(95);
        }
        redis.slowlogReset();
        long[][] clientNanos = new long[2][queries];
        RedisRollingWindow[] both = {small, large};
        int[] expected = {1_000, 100_000};
        for (int i = 0; i < queries; i++) {
          for (int k = 0; k < 2; k++) {
            long t0 = System.nanoTime();
            if (both[k].snapshot(95).count() != expected[k]) {
              throw new IllegalStateException("lost samples");
            }
            clientNanos[k][i] = System.nanoTime() - t0;
          }
        }
        long[][] serverUs =
            ScriptSlowlog.serverMicros(
                redis, snapshotSha, smallKey, RedisKeys.window("ringtail", "bench-100k")[0]);
        redis.configSet("slowlog-log-slower-than", "10000");

        long bytes = 0;
        for (String key : RedisKeys.window("ringtail", "bench-100k")) {
          Long usage = redis.memoryUsage(key);
          bytes += usage == null ? 0 : usage;
        }
        ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
        // per minute, so that no key expires idle (by the server's clock) before it is read
        Duration minute = Duration.ofMinutes(1);
        RateLimiter limiter =
            backend.rateLimiter(
                "bench",
                RateLimitConfig.builder().limit(10_000).window(minute).timeSource(time).build());
        ThresholdDetector detector =
            backend.thresholdDetector(
                "bench",
                ThresholdConfig.builder()
                    .threshold(10_000)
                    .window(minute)
                    .timeSource(time)
                    .build());
        for (int i = 0; i < 10_000; i++) {
          limiter.tryAcquire("user");
          detector.record("user", "event-" + i);
        }
        long rl = 0;
        for (String key : RedisKeys.decision("ringtail", "bench", "user", "rl")) {
          Long usage = redis.memoryUsage(key);
          rl += usage == null ? 0 : usage;
        }
        long th = 0;
        for (String key : RedisKeys.decision("ringtail", "bench", "user", "te", "ti", "tm", "tp")) {
          Long usage = redis.memoryUsage(key);
          th += usage == null ? 0 : usage;
        }

        if (bytes == 0 || rl == 0 || th == 0) {
          throw new IllegalStateException("a measured key was missing when its memory was read");
        }
        double[] q1k = jmhQuery.get(1_000);
        double[] q100k = jmhQuery.get(100_000);
        double jmhRatio = q100k[1] / q1k[1];
        double clientRatio = (double) pct(clientNanos[1], 95) / pct(clientNanos[0], 95);
        double serverRatio = (double) pct(serverUs[1], 95) / pct(serverUs[0], 95);
        md.append("| measurement | result |\n| --- | --- |\n");
        Markdown.row(
            md,
            "`redis-benchmark -c 50 -P 16`, 1 sample per call",
            Format.fmt(
                "%,.0f samples/s before the JVM, %,.0f after (-P 1: %,.0f)",
                benchP16, benchP16After, benchP1));
        Markdown.row(
            md,
            Format.fmt(
                "`redis-benchmark -c 50 -P 16`, %d samples per call (the library's batch)", BATCH),
            Format.fmt(
                "%,.0f samples/s before the JVM, %,.0f after", benchBatched, benchBatchedAfter));
        Markdown.row(
            md,
            "`RedisRollingWindow.record`, 1 thread, 1 connection, batched and pipelined (JMH)",
            Format.fmt(
                "**%,.0f ± %,.0f samples/s = %.0f %% of redis-benchmark at %d/call, %.0f %% at 1/call**",
                javaRate, javaError, 100 * javaRate / benchMany, BATCH, 100 * javaRate / benchOne));
        Markdown.row(
            md,
            "`snapshot(95)` latency, JMH sample mode, p50 / p95, 1k vs 100k samples",
            Format.fmt(
                "1k %s / %s, 100k %s / %s (%,.0f and %,.0f calls): **p95 ratio %.2f**",
                Format.micros(q1k[0]),
                Format.micros(q1k[1]),
                Format.micros(q100k[0]),
                Format.micros(q100k[1]),
                q1k[2],
                q100k[2],
                jmhRatio));
        Markdown.row(
            md,
            Format.fmt(
                "`snapshot(95)` client latency, %,d interleaved calls each, p50 / p95", queries),
            Format.fmt(
                "1k %.1f / %.1f µs, 100k %.1f / %.1f µs: p95 ratio %.2f",
                pct(clientNanos[0], 50) / 1e3,
                pct(clientNanos[0], 95) / 1e3,
                pct(clientNanos[1], 50) / 1e3,
                pct(clientNanos[1], 95) / 1e3,
                clientRatio));
        Markdown.row(
            md,
            "`snapshot(95)` server time (SLOWLOG), same calls, p50 / p95",
            Format.fmt(
                "1k %d / %d µs, 100k %d / %d µs: p95 ratio %.2f",
                pct(serverUs[0], 50),
                pct(serverUs[0], 95),
                pct(serverUs[1], 50),
                pct(serverUs[1], 95),
                serverRatio));
        Markdown.row(
            md,
            "memory (`MEMORY USAGE` of every key)",
            Format.fmt(
                "%.0f B/sample (window, 100k samples), %.0f B/admitted request (rate limiter), "
                    + "%.0f B/held event (threshold detector, ids `event-N`), at 10k per key",
                bytes / 100_000.0, rl / 10_000.0, th / 10_000.0));
        md.append('\n');
        md.append("| Redis target | measured | status |\n| --- | --- | --- |\n");
        Markdown.row(
            md,
            "ingest from one JVM at least 80 % of `redis-benchmark` on the same script",
            Format.fmt(
                "%.0f %% of %d samples/call, %.0f %% of 1 sample/call",
                100 * javaRate / benchMany, BATCH, 100 * javaRate / benchOne),
            javaRate >= 0.8 * benchMany
                ? "met"
                : javaRate >= 0.8 * benchOne ? "met against 1 sample/call only" : "not met");
        Markdown.row(
            md,
            "P95 query, 100k vs 1k samples, ratio at most 1.5",
            Format.fmt(
                "interleaved: client %.2f, server %.2f; JMH (1k and 100k run one after the other) %.2f",
                clientRatio, serverRatio, jmhRatio),
            clientRatio <= 1.5 && jmhRatio <= 1.5
                ? "met"
                : clientRatio <= 1.5
                    ? "met interleaved; the sequential JMH runs disagree (machine noise hits one size)"
                    : "not met");
        md.append('\n');
        Runtime rt = Runtime.getRuntime();
        md.append(
            Format.fmt(
                "Machine: %s, %d cores, %s %s, %s %s, Redis %s (server and `redis-benchmark` on the "
                    + "same machine); load average %s at the start, %s at the end. Run %s, %d s. JMH 1.37, 1 fork; "
                    + "ingest 2 x 2 s warm-up, 5 x 2 s measurement (mean ± 99.9 %% error); query 2 x 1 s warm-up, "
                    + "5 x 1 s measurement. `redis-benchmark -r 1000000000`, `-n %d` at 1 sample per call, `-n %d` at %d.%n",
                Machine.cpuModel(),
                rt.availableProcessors(),
                System.getProperty("java.vm.name"),
                System.getProperty("java.vm.version"),
                System.getProperty("os.name"),
                System.getProperty("os.arch"),
                version.replace("redis_version:", ""),
                loadAtStart,
                Machine.loadAverage(),
                Instant.now().truncatedTo(ChronoUnit.MINUTES),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                samples,
                4 * samples / BATCH,
                BATCH));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
    String markdown = md.toString();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println(markdown);
    System.out.println("Written to " + out);
    for (Path doc : docs) {
      DocsBlock.replace(doc, BEGIN, END, markdown);
    }
  }

  private static RunResult only(Collection<RunResult> results) throws RunnerException {
    if (results.size() != 1) {
      throw new RunnerException("expected one result, but was " + results.size());
    }
    return results.iterator().next();
  }

  private static long pct(long[] values, double p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(p / 100 * sorted.length) - 1];
  }
}
