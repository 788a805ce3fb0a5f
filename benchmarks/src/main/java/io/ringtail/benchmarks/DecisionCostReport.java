package io.ringtail.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.redis.OutagePolicy;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a Redis decision costs the Redis server, by {@code INFO commandstats} ({@code EVALSHA} calls
 * and microseconds, reset before each phase) on a fresh {@code redis-server} this report starts on
 * a free port, 1,000 keys at 100 permits per second per key:
 *
 * <ol>
 *   <li>rate-limiter admissions, and denials that Redis answers (each from a limiter instance that
 *       has not seen the key denied yet); the same for the bucketed limiter, and the memory per key
 *       of both ({@code MEMORY USAGE});
 *   <li>a flood of 10x the limit on every key from 8 threads: Redis calls per decision, local
 *       denials, client decisions per second;
 *   <li>sum-cap admissions and denials.
 * </ol>
 *
 * Times are on a {@link ManualTimeSource} advanced by the report, so every phase decides the same
 * requests whatever the machine's speed. Prints a markdown table.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar
 * io.ringtail.benchmarks.DecisionCostReport [--keys 1000] [--rounds 5]}. Not thread-safe; a main.
 */
public final class DecisionCostReport {
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final int LIMIT = 100;

  private DecisionCostReport() {}

  public static void main(String[] args) throws Exception {
    int keys = 1_000;
    int rounds = 5;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--keys" -> keys = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    try (RedisProcess server = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
        run(connection, keys, rounds);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  private static void run(StatefulRedisConnection<String, String> connection, int keys, int rounds)
      throws Exception {
    RedisCommands<String, String> redis = connection.sync();
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(Duration.ofSeconds(2))
            .outagePolicy(OutagePolicy.THROW)
            .build();
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    RateLimitConfig rule =
        RateLimitConfig.builder().limit(LIMIT).window(WINDOW).timeSource(time).build();
    String[] names = new String[keys];
    for (int k = 0; k < keys; k++) {
      names[k] = "user-" + k;
    }
    backend.rateLimiter("warm-up", rule).tryAcquire("k");
    System.out.println("| phase | decisions | EVALSHA calls | Redis us per call | note |");
    System.out.println("|---|---:|---:|---:|---|");

    // admissions: every key spends its limit evenly over each window
    long step = WINDOW.toNanos() / LIMIT;
    RateLimiter limiter = backend.rateLimiter("cost", rule);
    reset(redis);
    long admitted = 0;
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < LIMIT; i++) {
        for (String k : names) {
          admitted += limiter.tryAcquire(k).allowed() ? 1 : 0;
        }
        time.advanceNanos(step);
      }
    }
    row("rate limiter, admissions", admitted, redis, "all admitted");
    long logBytes = redis.memoryUsage("ringtail:{cost:user-0}:rl");

    // denials answered by Redis: each key spent, each asked once per fresh limiter instance
    for (String k : names) {
      for (int i = 0; i < LIMIT; i++) {
        limiter.tryAcquire(k);
      }
    }
    reset(redis);
    long denied = 0;
    for (int r = 0; r < rounds; r++) {
      RateLimiter fresh = backend.rateLimiter("cost", rule);
      for (String k : names) {
        denied += fresh.tryAcquire(k).allowed() ? 0 : 1;
      }
    }
    row("rate limiter, denials by Redis", denied, redis, "each the first denial this instance saw");

    // the bucketed limiter: admissions, then denials (each asks Redis)
    RateLimiter bucketed = backend.bucketedRateLimiter("cost-bucketed", rule);
    time.advance(WINDOW.multipliedBy(2));
    reset(redis);
    long bucketAdmitted = 0;
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < LIMIT; i++) {
        for (String k : names) {
          bucketAdmitted += bucketed.tryAcquire(k).allowed() ? 1 : 0;
        }
        time.advanceNanos(step);
      }
    }
    row("bucketed limiter, admissions", bucketAdmitted, redis, "sub-window 62.5 ms");
    for (String k : names) {
      for (int i = 0; i < LIMIT; i++) {
        bucketed.tryAcquire(k);
      }
    }
    reset(redis);
    long bucketDenied = 0;
    for (int r = 0; r < rounds; r++) {
      for (String k : names) {
        bucketDenied += bucketed.tryAcquire(k).allowed() ? 0 : 1;
      }
    }
    row("bucketed limiter, denials", bucketDenied, redis, "");
    System.out.printf(
        Locale.ROOT,
        "%nMEMORY USAGE per key at a limit of %d, window full: sliding log %d B,"
            + " bucketed %d B%n",
        LIMIT,
        logBytes,
        redis.memoryUsage("ringtail:{cost-bucketed:user-0}:rc"));
    System.out.println();

    // a flood of 10x the limit per key, 8 threads
    time.advance(WINDOW.multipliedBy(2));
    RateLimiter flooded = backend.rateLimiter("flood", rule);
    reset(redis);
    long localBefore = backend.localDenials();
    AtomicLong allowed = new AtomicLong();
    int threads = 8;
    int perKey = 10 * LIMIT;
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      Future<?>[] done = new Future<?>[threads];
      for (int th = 0; th < threads; th++) {
        int first = th;
        done[th] =
            pool.submit(
                () -> {
                  for (int i = first; i < perKey * names.length; i += threads) {
                    if (flooded.tryAcquire(names[i % names.length]).allowed()) {
                      allowed.incrementAndGet();
                    }
                  }
                });
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long decisions = (long) perKey * names.length;
    long local = backend.localDenials() - localBefore;
    row(
        "flood 10x limit, 8 threads",
        decisions,
        redis,
        String.format(
            Locale.ROOT,
            "%d admitted, %d denied locally, %.0f decisions/s, %.0f local denials/s",
            allowed.get(),
            local,
            decisions / seconds,
            local / seconds));

    // sum cap: amounts of 1.00 under a cap of 100.00 per second
    SumCapConfig capRule =
        SumCapConfig.builder()
            .cap(new BigDecimal("100.00"))
            .window(WINDOW)
            .timeSource(time)
            .build();
    SumCap cap = backend.sumCap("cost", capRule);
    time.advance(WINDOW.multipliedBy(2));
    reset(redis);
    long added = 0;
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < LIMIT; i++) {
        for (String k : names) {
          added += cap.tryAdd(k, BigDecimal.ONE).allowed() ? 1 : 0;
        }
        time.advanceNanos(step);
      }
    }
    row("sum cap, admissions", added, redis, "all admitted");
    for (String k : names) {
      cap.tryAdd(k, new BigDecimal("100.00"));
    }
    reset(redis);
    long capDenied = 0;
    for (int r = 0; r < rounds; r++) {
      for (String k : names) {
        capDenied += cap.tryAdd(k, BigDecimal.ONE).allowed() ? 0 : 1;
      }
    }
    row("sum cap, denials", capDenied, redis, "");
  }

  private static void reset(RedisCommands<String, String> redis) {
    redis.configResetstat();
  }

  private static void row(
      String phase, long decisions, RedisCommands<String, String> redis, String note) {
    long calls = 0;
    long usec = 0;
    for (String line : redis.info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
          String[] kv = field.split("=");
          if (kv[0].equals("calls")) {
            calls += Long.parseLong(kv[1]);
          } else if (kv[0].equals("usec")) {
            usec += Long.parseLong(kv[1]);
          }
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "| %s | %d | %d | %.2f | %s |%n",
        phase,
        decisions,
        calls,
        calls == 0 ? 0.0 : (double) usec / calls,
        note);
  }
}
