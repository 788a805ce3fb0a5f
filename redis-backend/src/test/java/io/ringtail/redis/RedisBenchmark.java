package io.ringtail.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A small measurement of the Redis window (run by hand, not by surefire): ingest throughput from
 * one JVM (async pipelined EVALSHA on one connection) against {@code redis-benchmark} running
 * the same script with the same arguments on the same fresh server in the same run, the cost of a
 * P95 query at 1k and 100k samples, and memory per sample. Needs {@code redis-server} and
 * {@code redis-benchmark} on the PATH (Debian: {@code apt-get install redis-server redis-tools}).
 *
 * <p>Args: {@code [samples=300000] [queries=3000]}.
 */
public final class RedisBenchmark {
  private static final int BATCH = 64;

  private RedisBenchmark() {}

  public static void main(String[] args) throws Exception {
    int samples = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    int queries = args.length > 1 ? Integer.parseInt(args[1]) : 3_000;
    System.out.printf(Locale.ROOT, "machine: %d cores, %s, %s%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.name"), System.getProperty("java.version"));
    try (RedisProcess server = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(10)));
      try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
        RedisCommands<String, String> redis = connection.sync();
        System.out.println("redis: " + redis.info("server").lines()
            .filter(l -> l.startsWith("redis_version")).findFirst().orElse("?"));
        RedisBackend backend = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(10)).build();
        redis.scriptLoad(Scripts.WINDOW_RECORD.body);

        // redis-benchmark, the same script and arguments (one sample per call, server time).
        String[] keys = WindowKeys.window("ringtail", "bench-redis-benchmark");
        List<String> script = new ArrayList<>(List.of("EVALSHA", Scripts.WINDOW_RECORD.sha, "4"));
        script.addAll(Arrays.asList(keys));
        script.addAll(List.of("60000000", "500", "5000", "10000000", "61000", "", "-1",
            "", "0000000000000000042:__rand_int__", "42"));
        double benchP16 = redisBenchmark(server.port(), samples, 16, script);
        double benchP1 = redisBenchmark(server.port(), samples, 1, script);
        redis.del(keys);
        List<String> batched = new ArrayList<>(script.subList(0, script.size() - 3));
        for (int i = 0; i < BATCH; i++) {
          batched.addAll(List.of("", "0000000000000000042:" + i + "-__rand_int__", "42"));
        }
        double batchedCalls = redisBenchmark(server.port(), samples / BATCH, 16, batched);
        redis.del(keys);

        // One JVM, one connection, RedisRollingWindow.record pipelined (async, 4096 in flight).
        RedisRollingWindow w = backend.window("bench-java").maxSamples(10_000_000).build();
        for (int i = 0; i < 20_000; i++) {
          w.record(i);
        }
        w.flush(Duration.ofSeconds(30));
        redis.del(WindowKeys.window("ringtail", "bench-java"));
        long start = System.nanoTime();
        for (int i = 0; i < samples; i++) {
          w.record(42);
        }
        if (!w.flush(Duration.ofMinutes(2))) {
          throw new IllegalStateException("not flushed: " + w.stats());
        }
        double javaRate = samples / ((System.nanoTime() - start) / 1e9);
        RedisWindowStats stats = w.stats();
        if (stats.stored() != stats.recorded()) {
          throw new IllegalStateException("samples not stored: " + stats);
        }
        System.out.printf(Locale.ROOT, "ingest  redis-benchmark -c 50, 1 sample/call: -P 16 %,.0f samples/s,"
            + " -P 1 %,.0f samples/s; %d samples/call -P 16: %,.0f samples/s%n",
            benchP16, benchP1, BATCH, batchedCalls * BATCH);
        System.out.printf(Locale.ROOT, "ingest  RedisRollingWindow.record, 1 thread, 1 connection: %,.0f samples/s"
            + " = %.0f%% of redis-benchmark 1 sample/call -P 16, %.0f%% of %d samples/call (stats %s)%n",
            javaRate, 100 * javaRate / benchP16, 100 * javaRate / (batchedCalls * BATCH), BATCH, w.stats());
        redis.del(WindowKeys.window("ringtail", "bench-java"));

        // P95 query cost at 1k vs 100k samples, interleaved so machine noise hits both alike.
        RedisRollingWindow small = filled(backend, "bench-1k", 1_000);
        RedisRollingWindow large = filled(backend, "bench-100k", 100_000);
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
        long[][] serverUs = serverMicros(redis, WindowKeys.window("ringtail", "bench-1k")[0],
            WindowKeys.window("ringtail", "bench-100k")[0]);
        redis.configSet("slowlog-log-slower-than", "10000");
        System.out.printf(Locale.ROOT, "query   snapshot(95), %d interleaved queries each; client p50/p95 (us): 1k %.0f/%.0f,"
            + " 100k %.0f/%.0f; server (SLOWLOG) p50/p95 (us): 1k %d/%d, 100k %d/%d;"
            + " 100k/1k p95 ratio: client %.2f, server %.2f%n", queries,
            pct(clientNanos[0], 50) / 1e3, pct(clientNanos[0], 95) / 1e3, pct(clientNanos[1], 50) / 1e3,
            pct(clientNanos[1], 95) / 1e3, pct(serverUs[0], 50), pct(serverUs[0], 95), pct(serverUs[1], 50),
            pct(serverUs[1], 95), (double) pct(clientNanos[1], 95) / pct(clientNanos[0], 95),
            (double) pct(serverUs[1], 95) / pct(serverUs[0], 95));
        long bytes = 0;
        for (String key : WindowKeys.window("ringtail", "bench-100k")) {
          Long usage = redis.memoryUsage(key);
          bytes += usage == null ? 0 : usage;
        }
        System.out.printf(Locale.ROOT, "memory  %,d bytes for 100k samples = %.0f bytes/sample (MEMORY USAGE of all keys)%n",
            bytes, bytes / 100_000.0);
        io.ringtail.ManualTimeSource time = new io.ringtail.ManualTimeSource(1_000_000_000_000_000L);
        io.ringtail.keyed.RateLimiter limiter = backend.rateLimiter("bench", io.ringtail.keyed.RateLimitConfig.builder()
            .limit(10_000).timeSource(time).build());
        io.ringtail.keyed.ThresholdDetector detector = backend.thresholdDetector("bench",
            io.ringtail.keyed.ThresholdConfig.builder().threshold(10_000).timeSource(time).build());
        for (int i = 0; i < 10_000; i++) {
          limiter.tryAcquire("user");
          detector.record("user", "event-" + i);
        }
        long rl = 0;
        for (String key : DecisionKeys.of("ringtail", "bench", "user", "rl", "rm")) {
          rl += redis.memoryUsage(key);
        }
        long th = 0;
        for (String key : DecisionKeys.of("ringtail", "bench", "user", "te", "ti", "tm")) {
          th += redis.memoryUsage(key);
        }
        System.out.printf(Locale.ROOT, "memory  rate limiter %.0f bytes/admitted request, threshold detector %.0f"
            + " bytes/held event (ids 'event-N'), at 10k per key%n", rl / 10_000.0, th / 10_000.0);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  private static RedisRollingWindow filled(RedisBackend backend, String name, int n) {
    RedisRollingWindow w = backend.window(name).maxSamples(10_000_000).build();
    for (int i = 0; i < n; i++) {
      w.record(i * 7L % 100_003);
    }
    if (!w.flush(Duration.ofMinutes(1))) {
      throw new IllegalStateException("not flushed");
    }
    return w;
  }

  /** Server-side durations (µs, from SLOWLOG) of the snapshot script calls on each window's first key. */
  private static long[][] serverMicros(RedisCommands<String, String> redis, String smallKey, String largeKey) {
    List<Long> small = new ArrayList<>();
    List<Long> large = new ArrayList<>();
    for (Object entry : redis.slowlogGet(Integer.MAX_VALUE)) {
      List<?> e = (List<?>) entry;
      List<?> command = (List<?>) e.get(3);
      if (command.size() > 3 && Scripts.WINDOW_SNAPSHOT.sha.equals(String.valueOf(command.get(1)))) {
        String key = String.valueOf(command.get(3));
        (key.equals(smallKey) ? small : key.equals(largeKey) ? large : new ArrayList<Long>()).add((Long) e.get(2));
      }
    }
    return new long[][] {small.stream().mapToLong(Long::longValue).toArray(),
        large.stream().mapToLong(Long::longValue).toArray()};
  }

  private static long pct(long[] values, double p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(p / 100 * sorted.length) - 1];
  }

  private static double redisBenchmark(int port, int requests, int pipeline, List<String> command)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-h", "127.0.0.1", "-p", Integer.toString(port),
        "-c", "50", "-n", Integer.toString(requests), "-P", Integer.toString(pipeline), "-r", "1000000000",
        "--csv"));
    cmd.addAll(command);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String last = null;
    StringBuilder all = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        all.append(line).append('\n');
        if (line.startsWith("\"") && !line.startsWith("\"test\"")) {
          last = line;
        }
      }
    }
    if (p.waitFor() != 0 || last == null) {
      throw new IllegalStateException("redis-benchmark failed: " + all);
    }
    return Double.parseDouble(last.split(",")[1].replace("\"", ""));
  }
}
