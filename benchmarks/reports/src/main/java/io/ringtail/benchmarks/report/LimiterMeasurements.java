package io.ringtail.benchmarks.report;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.benchmarks.redis.RedisLimiter;
import io.ringtail.benchmarks.toolkit.Format;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * What the limiter comparison measures of one contender on the report's {@code redis-server}:
 * throughput phases (decisions/s, latency, Redis time, Redis CPU and commands per decision), memory
 * per key, and admissions on a fixed schedule. Stateless; each measurement uses the limiter and
 * connection it is given from the calling thread (and its own worker threads).
 */
final class LimiterMeasurements {
  private LimiterMeasurements() {}

  /** One throughput phase's figures. */
  record Phase(
      double decisionsPerSecond,
      double p50Micros,
      double p99Micros,
      double admittedShare,
      double redisCpuMicros,
      double redisMicros,
      String commands) {}

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
    Map<String, Double> shares = topLevelShares(limiter, redis, keys, threads);
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
        redisMicros(stats, shares, r.decisions),
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

  /** Decisions a phase's {@code SLOWLOG} sample takes, split between its threads. */
  static final int SAMPLE = 2_000;

  private static final Set<String> SCRIPT_CALLS =
      Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

  /**
   * Which share of each command's calls are top-level (sent by a client) rather than called by a
   * script, from {@code SLOWLOG} over {@value #SAMPLE} decisions: Redis 7 logs the commands a
   * script calls too, as client {@code ?:0}. A script's own calls are all top-level.
   */
  static Map<String, Double> topLevelShares(
      RedisLimiter limiter, RedisCommands<String, String> redis, String[] keys, int threads)
      throws InterruptedException {
    redis.configSet("slowlog-max-len", Integer.toString(40 * SAMPLE));
    redis.configSet("slowlog-log-slower-than", "0");
    redis.slowlogReset();
    run(limiter, keys, threads, Math.max(1, SAMPLE / threads), 0);
    redis.configSet("slowlog-log-slower-than", "10000");
    Map<String, long[]> counts = new TreeMap<>();
    for (Object entry : redis.slowlogGet(40 * SAMPLE)) {
      List<?> e = (List<?>) entry;
      String name = String.valueOf(((List<?>) e.get(3)).get(0)).toLowerCase(Locale.ROOT);
      if (name.equals("config") || name.equals("slowlog")) {
        continue;
      }
      boolean insideScript = e.size() > 4 && String.valueOf(e.get(4)).startsWith("?");
      counts.computeIfAbsent(name, n -> new long[2])[insideScript ? 1 : 0]++;
    }
    redis.slowlogReset();
    Map<String, Double> shares = new TreeMap<>();
    counts.forEach((name, c) -> shares.put(name, (double) c[0] / (c[0] + c[1])));
    return shares;
  }

  /**
   * Redis time per decision: each command's time from {@code INFO commandstats} ({@code SLOWLOG}
   * off, so that logging is not part of it), counted at its top-level share; a script's time covers
   * what it calls. A command the sample did not see counts whole.
   */
  static double redisMicros(Map<String, long[]> stats, Map<String, Double> shares, long decisions) {
    double usec = 0;
    for (Map.Entry<String, long[]> e : stats.entrySet()) {
      String name = e.getKey();
      if (name.equals("info") || name.startsWith("config")) {
        continue;
      }
      double share = SCRIPT_CALLS.contains(name) ? 1 : shares.getOrDefault(name, 1.0);
      usec += share * e.getValue()[1];
    }
    return usec / decisions;
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
   * What one run of the schedule admitted: the send times (ns from the start) of the admitted
   * requests, and the longest round trip of any request (ns).
   */
  record Admissions(long[] sentAt, long longestRoundTrip) {
    /**
     * Bounds on the most admitted in any sliding {@code window} of the times the limiter decided
     * at, when each decision's time lies within the longest round trip of its send time (a limiter
     * reading the server's clock decides between send and reply; Ringtail's client estimates the
     * server's clock from the previous reply, so its time may lie up to one round trip before): the
     * busiest interval of send times {@code 2 * longestRoundTrip} narrower than the window, and the
     * busiest one as much wider. An exact limiter keeps the first at most its limit.
     */
    int[] slidingMaxBounds(long window) {
      long margin = 2 * longestRoundTrip;
      return new int[] {
        slidingMax(sentAt, Math.max(1, window - margin)), slidingMax(sentAt, window + margin)
      };
    }
  }

  /** Sends one request per schedule time on one key, from this thread. */
  static Admissions runSchedule(RedisLimiter limiter, long[] schedule) {
    limiter.tryAcquire("warm-up");
    long start = System.nanoTime();
    long[] admitted = new long[schedule.length];
    long longest = 0;
    int n = 0;
    for (long at : schedule) {
      long wait;
      while ((wait = start + at - System.nanoTime()) > 0) {
        if (wait > 200_000) {
          LockSupport.parkNanos(wait - 100_000);
        }
      }
      long sent = System.nanoTime() - start;
      boolean allowed = limiter.tryAcquire("schedule");
      longest = Math.max(longest, System.nanoTime() - start - sent);
      if (allowed) {
        admitted[n++] = sent;
      }
    }
    return new Admissions(Arrays.copyOf(admitted, n), longest);
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

  static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    throw new IllegalStateException("INFO has no " + name + ": " + info);
  }
}
