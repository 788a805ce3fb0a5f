package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.ManualTimeSource;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.redis.OutagePolicy;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What a Redis decision costs the Redis server, by {@code INFO commandstats} (script calls, {@code
 * FCALL} or {@code EVALSHA}, and their microseconds, reset before each round of a phase) on a fresh
 * {@code redis-server} this report starts on a free port, 1,000 keys ({@code --keys}; fewer keys
 * than threads: every thread on every key, as on a hot key) at 100 permits per second per key
 * ({@code --limit}).
 *
 * <p>Every phase runs from 1, 8 and 64 threads sharing the connection ({@code --threads}): from one
 * thread the server waits for each call and starts it cold; the more threads, the more calls arrive
 * pipelined and the server stays busy, as it does under a fleet's load. Each time it starts with
 * the floor: a function that only returns a reply, with a decision's arguments. The phases:
 *
 * <ol>
 *   <li>sliding-log and bucketed limiter admissions, and denials that Redis answers (each from a
 *       limiter instance that has not seen the key denied yet), and the memory per key of both
 *       ({@code MEMORY USAGE});
 *   <li>sum-cap admissions and denials;
 *   <li>a flood of 10x the limit on every key from 8 threads, on the sliding log and on the
 *       bucketed limiter: Redis calls per decision, local denials, client decisions per second.
 *       Phases that fill every key (denials, floods) run only while that takes at most {@value
 *       #MOST_SPENT} requests; an admission round makes at most {@value #MOST_PER_ROUND}.
 * </ol>
 *
 * Times are on a {@link ManualTimeSource} advanced by the report, so every phase decides the same
 * requests whatever the machine's speed. A phase runs in 10 x {@code --rounds} rounds (an admission
 * round a tenth of a window on every key, a denial round one request per key) and prints the mean
 * of all its calls, its median round and its best. Prints a markdown table.
 *
 * <p>Run: {@code java -cp benchmarks/reports/target/reports.jar
 * io.ringtail.benchmarks.report.DecisionCostReport [--keys 1000] [--rounds 5] [--server-cpus 1]}. A
 * main. With {@code --server-cpus}, the server runs on those CPUs only; with the JVM kept off them
 * ({@code taskset -c 0 java ...}), the server's times are its own, not shared with the client's
 * threads, as on a Redis host.
 */
public final class DecisionCostReport {
  private static final Duration WINDOW = Duration.ofSeconds(1);

  /**
   * The most requests in an admission round: a tenth of the limit per key, at most 10 per key and
   * at least one, fewer when that would pass this over all keys.
   */
  private static final int MOST_PER_ROUND = 10_000;

  /**
   * The most requests spent filling every key before the denial phases and the floods: beyond, they
   * are left out (they would take minutes).
   */
  private static final long MOST_SPENT = 200_000;

  /** Requests per key in an admission round. */
  static int perRound(int keys, int limit) {
    return Math.max(1, Math.min(Math.min(limit / 10, 10), MOST_PER_ROUND / keys));
  }

  /** Whether filling every key to {@code limit} stays within {@link #MOST_SPENT}. */
  static boolean spendable(int keys, int limit) {
    return (long) keys * limit <= MOST_SPENT;
  }

  /**
   * Keys' idle expiry: the report's time stands still while real seconds pass, and a key must not
   * expire between the phase that spends it and the phase that asks it.
   */
  private static final Duration IDLE = Duration.ofHours(1);

  private static final int FLOOD_THREADS = 8;

  /** The sum cap's cap, in units of 1 added per request. */
  private static final int SUM_CAP_UNITS = 100;

  private DecisionCostReport() {}

  /** The command line. */
  @Command(
      name = "DecisionCostReport",
      description = "What a Redis decision costs Redis and the caller.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.printing().acceptServerCpus();

    @Option(names = "--keys", description = "KeyWork decided on.")
    int keys = 1_000;

    @Option(names = "--rounds", description = "ScriptCallRounds per row.")
    int rounds = 5;

    @Option(names = "--limit", description = "Permits per second per key.")
    int limit = 100;

    @Option(
        names = "--threads",
        split = ",",
        description = "Caller threads per row, comma-separated.")
    int[] threads = {1, 8, 64};
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    int keys = cli.keys;
    int rounds = cli.rounds;
    String serverCpus = cli.common.serverCpus();
    int[] threads = cli.threads;
    int limit = cli.limit;
    try (RedisProcess server = RedisProcess.start()) {
      if (serverCpus != null) {
        Machine.pin(server.pid(), serverCpus);
      }
      RedisClient client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
        run(connection, keys, rounds, threads, limit);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  private static void run(
      StatefulRedisConnection<String, String> connection,
      int keys,
      int rounds,
      int[] threadCounts,
      int limit)
      throws Exception {
    RedisCommands<String, String> redis = connection.sync();
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(Duration.ofSeconds(2))
            .outagePolicy(OutagePolicy.THROW)
            .build();
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    RateLimitConfig rule =
        RateLimitConfig.builder()
            .limit(limit)
            .window(WINDOW)
            .timeSource(time)
            .idleExpiry(IDLE)
            .build();
    SumCapConfig capRule =
        SumCapConfig.builder()
            .cap(new BigDecimal("100.00"))
            .window(WINDOW)
            .timeSource(time)
            .idleExpiry(IDLE)
            .build();
    String[] names = new String[keys];
    for (int k = 0; k < keys; k++) {
      names[k] = "user-" + k;
    }
    backend.rateLimiter("warm-up", rule).tryAcquire("k");
    System.out.println(
        "| phase (keys "
            + keys
            + ", limit "
            + limit
            + ") | threads | decisions | script calls | Redis us per call: all calls | median round"
            + " | best round | note |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
    int most = Math.max(FLOOD_THREADS, Arrays.stream(threadCounts).max().orElse(1));
    ExecutorService pool = Executors.newFixedThreadPool(most);
    try {
      for (int threads : threadCounts) {
        KeyWork each = new KeyWork(pool, threads, names);
        floor(redis, each, rounds);
        String run = "t" + threads;
        limiterPhases(
            "sliding-log limiter",
            () -> backend.rateLimiter("cost-" + run, rule),
            "ringtail:{cost-" + run + ":user-0}:rl",
            each,
            time,
            redis,
            rounds,
            limit);
        time.advance(WINDOW.multipliedBy(2));
        limiterPhases(
            "bucketed limiter",
            () -> backend.bucketedRateLimiter("cost-bucketed-" + run, rule),
            "ringtail:{cost-bucketed-" + run + ":user-0}:rc",
            each,
            time,
            redis,
            rounds,
            limit);
        SumCap cap = backend.sumCap("cost-" + run, capRule);
        time.advance(WINDOW.multipliedBy(2));
        sumCapPhases(cap, each, time, redis, rounds);
        time.advance(WINDOW.multipliedBy(2));
      }
      if (spendable(keys, 10 * limit)) {
        flood("sliding log", backend.rateLimiter("flood", rule), backend, names, time, redis, pool);
        flood(
            "bucketed limiter",
            backend.bucketedRateLimiter("flood-bucketed", rule),
            backend,
            names,
            time,
            redis,
            pool);
      }
    } finally {
      pool.shutdown();
    }
  }

  /**
   * The floor of any script call in the same conditions: a script that only returns a decision's
   * reply, called with a sliding-log decision's arguments (its 48 bytes of packed numbers and the
   * TTL).
   */
  private static void floor(RedisCommands<String, String> redis, KeyWork each, int rounds)
      throws Exception {
    redis.functionLoad(
        "#!lua name=cost_floor\n"
            + "redis.register_function('cost_floor', function(keys, args)"
            + " return struct.pack('>BBI4I4dd', 1, 0, 0, 99, 0, -1) end)",
        true);
    String[] args = {"n".repeat(48), "2000"};
    ScriptCallRounds measured = new ScriptCallRounds(redis);
    AtomicLong calls = new AtomicLong();
    for (int r = 0; r < rounds * 10; r++) {
      each.run(
          k -> {
            redis.fcall("cost_floor", ScriptOutputType.MULTI, new String[] {k}, args);
            calls.incrementAndGet();
          });
      measured.end();
    }
    row("floor: a function returning a reply", each.threads(), calls.get(), measured, "");
  }

  private static void limiterPhases(
      String name,
      Supplier<RateLimiter> fresh,
      String sampleKey,
      KeyWork each,
      ManualTimeSource time,
      RedisCommands<String, String> redis,
      int rounds,
      int limit)
      throws Exception {
    // admissions: every key spends its limit evenly over each window (at most MOST_PER_ROUND
    // requests per key a round)
    RateLimiter limiter = fresh.get();
    long step = WINDOW.toNanos() / limit;
    AtomicLong admitted = new AtomicLong();
    ScriptCallRounds measured = new ScriptCallRounds(redis);
    for (int r = 0; r < rounds * 10; r++) {
      for (int i = 0; i < perRound(each.names().length, limit); i++) {
        each.run(k -> admitted.addAndGet(limiter.tryAcquire(k).allowed() ? 1 : 0));
        time.advanceNanos(step);
      }
      measured.end();
    }
    String memory = "MEMORY USAGE of a full key: " + redis.memoryUsage(sampleKey) + " B";
    row(name + ", admissions", each.threads(), admitted.get(), measured, "admitted; " + memory);
    if (!spendable(each.names().length, limit)) {
      return; // spending the limit would take minutes
    }
    // denials answered by Redis: each key spent, then asked once a round, each round by a limiter
    // instance that has not seen it denied (one that has answers locally)
    each.run(
        k -> {
          for (int i = 0; i < limit; i++) {
            limiter.tryAcquire(k);
          }
        });
    AtomicLong denied = new AtomicLong();
    measured = new ScriptCallRounds(redis);
    for (int r = 0; r < rounds * 10; r++) {
      RateLimiter asking = fresh.get();
      each.run(k -> denied.addAndGet(asking.tryAcquire(k).allowed() ? 0 : 1));
      measured.end();
    }
    row(name + ", denials", each.threads(), denied.get(), measured, "denied");
  }

  private static void sumCapPhases(
      SumCap cap,
      KeyWork each,
      ManualTimeSource time,
      RedisCommands<String, String> redis,
      int rounds)
      throws Exception {
    long step = WINDOW.toNanos() / SUM_CAP_UNITS;
    AtomicLong added = new AtomicLong();
    ScriptCallRounds measured = new ScriptCallRounds(redis);
    for (int r = 0; r < rounds * 10; r++) {
      for (int i = 0; i < perRound(each.names().length, SUM_CAP_UNITS); i++) {
        each.run(k -> added.addAndGet(cap.tryAdd(k, BigDecimal.ONE).allowed() ? 1 : 0));
        time.advanceNanos(step);
      }
      measured.end();
    }
    row("sum cap, admissions", each.threads(), added.get(), measured, "admitted");
    if (!spendable(each.names().length, SUM_CAP_UNITS)) {
      return; // filling every key would take minutes
    }
    // each key filled to the cap
    each.run(
        k -> {
          while (cap.tryAdd(k, BigDecimal.ONE).allowed()) {
            added.incrementAndGet();
          }
        });
    AtomicLong denied = new AtomicLong();
    measured = new ScriptCallRounds(redis);
    for (int r = 0; r < rounds * 10; r++) {
      each.run(k -> denied.addAndGet(cap.tryAdd(k, BigDecimal.ONE).allowed() ? 0 : 1));
      measured.end();
    }
    row("sum cap, denials", each.threads(), denied.get(), measured, "denied");
  }

  /** A flood of 10x the limit on every key from the pool's threads. */
  private static void flood(
      String kind,
      RateLimiter flooded,
      RedisBackend backend,
      String[] names,
      ManualTimeSource time,
      RedisCommands<String, String> redis,
      ExecutorService pool)
      throws Exception {
    time.advance(WINDOW.multipliedBy(2));
    ScriptCallRounds measured = new ScriptCallRounds(redis);
    long localBefore = backend.localDenials();
    AtomicLong allowed = new AtomicLong();
    int perKey = 10 * flooded.config().limit();
    long start = System.nanoTime();
    new KeyWork(pool, FLOOD_THREADS, names)
        .each(
            perKey * names.length,
            i -> {
              if (flooded.tryAcquire(names[i % names.length]).allowed()) {
                allowed.incrementAndGet();
              }
            });
    double seconds = (System.nanoTime() - start) / 1e9;
    long decisions = (long) perKey * names.length;
    long local = backend.localDenials() - localBefore;
    measured.end();
    row(
        kind + ", flood of 10x the limit",
        FLOOD_THREADS,
        decisions,
        measured,
        String.format(
            Locale.ROOT,
            "%d admitted, %d denied locally, %.0f decisions/s, %.0f local denials/s",
            allowed.get(),
            local,
            decisions / seconds,
            local / seconds));
  }

  private static void row(
      String phase, int threads, long decisions, ScriptCallRounds measured, String note) {
    System.out.printf(
        Locale.ROOT,
        "| %s | %d | %d | %d | %.2f | %.2f | %.2f | %s |%n",
        phase,
        threads,
        decisions,
        measured.calls,
        measured.mean(),
        measured.median(),
        measured.best(),
        note);
  }
}
