package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.DocsBlock;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.RedisKeys;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.OutagePolicy;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.RedisUnavailableException;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What a Sentinel failover costs under load when the promoted replica misses writes on purpose, in
 * the default mode and in strict mode ({@code confirmingReplicas(1)}). Each failover runs on a
 * fresh {@link LocalSentinelGroup} (a primary, one replica, three sentinels on loopback) that this
 * report starts:
 *
 * <ol>
 *   <li>Load for {@value #WARMUP_MILLIS} ms: {@value #KEYS} keys each of a sliding-log rate
 *       limiter, a bucketed rate limiter (both {@value #LIMIT} per {@value #WINDOW_SECONDS} s) and
 *       a sum cap (cap {@value #LIMIT} amounts of 10 per {@value #WINDOW_SECONDS} s), each key
 *       asked {@value #RATE} times a second (twice its limit), one thread per key; a threshold
 *       detector counting {@value #RATE} distinct events a second on each of {@value #KEYS} keys (a
 *       threshold it never reaches: every event is counted); a raw window, a histogram window and a
 *       keyed fleet window of {@value #KEYS} keys recording {@value #RATE} samples a second each
 *       (each key), flushing every 20 samples.
 *   <li>The replica misses writes: its link is cut and it is stopped ({@link
 *       LocalSentinelGroup#detachAndPause}); the load goes on for {@value #LAG_MILLIS} ms (the
 *       replica is that far behind), then the primary is killed (SIGKILL) and the replica resumed.
 *   <li>The sentinels promote the replica; the killed server is restarted as a replica of the new
 *       primary (so strict mode has a replica to confirm again); the load goes on until {@value
 *       #AFTER_MILLIS} ms after the switch, then every window is flushed.
 * </ol>
 *
 * Measured per failover: over-admission per decision kind (for each key, the most admissions in any
 * window of the client's decision times beyond the limit, summed over keys; the sum cap in
 * amounts); for the raw window, samples whose record call Redis answered (every sample, once the
 * final flush succeeds) that the promoted primary lacks, and samples held twice; for the histogram
 * and keyed fleet windows, samples a successful flush covered that are missing from the final
 * count, and samples counted beyond those recorded; for the threshold detector, after the load
 * every event is recorded again: one answered {@code COUNTED} before and {@code COUNTED} again was
 * lost, one answered as an outage and now {@code DUPLICATE} was counted while the caller was told
 * it failed; how far behind the replica was (replication bytes); the time from the kill to the
 * sentinels' switch and from the switch to the first decision Redis answered. Before the failovers,
 * the cost of strict mode per decision on a healthy group: decisions/s and latency from 1 and 8
 * threads on one connection.
 *
 * <p>Run: {@code benchmarks/failover-report.sh [--failovers 20] [--docs docs/failover.md]}. About
 * 15 s per failover. Writes {@code benchmarks/target/failover.md}; each {@code --docs FILE}
 * replaces the block between {@value #BEGIN} and {@value #END}. A main; not thread-safe.
 */
public final class FailoverReport {
  static final String BEGIN = "<!-- failover-report:begin -->";
  static final String END = "<!-- failover-report:end -->";
  static final int KEYS = 2;
  static final int LIMIT = 1_000;
  static final int WINDOW_SECONDS = 10;
  static final int RATE = 2 * LIMIT / WINDOW_SECONDS;
  static final int WARMUP_MILLIS = 1_000;
  static final int LAG_MILLIS = 300;
  static final int AFTER_MILLIS = 6_000;
  static final Duration TIMEOUT = Duration.ofMillis(250);
  static final String[] KINDS = {"sliding log", "bucketed", "sum cap"};

  /** Epoch nanoseconds: the fleet's shared time base on one machine. */
  static final TimeSource EPOCH =
      () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
      };

  private FailoverReport() {}

  /** The command line. */
  @Command(
      name = "FailoverReport",
      description = "Every kind of window and decision through Redis failovers.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.writing("failover.md").acceptDocs();

    @Option(names = "--failovers", description = "Failovers per mode.")
    int failovers = 20;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Path out = cli.common.out();
    List<Path> docs = cli.common.docs();
    int failovers = cli.failovers;
    long started = System.nanoTime();
    String load = Machine.loadAverage();
    StringBuilder md = new StringBuilder();
    md.append("Strict mode's cost per decision (sliding-log limiter, 1,000 keys, one connection, ")
        .append("a primary with one healthy replica on loopback, 3 s per row):\n\n")
        .append("| mode | threads | decisions/s | p50 µs | p99 µs |\n")
        .append("|---|---:|---:|---:|---:|\n");
    for (int threads : new int[] {1, 8}) {
      for (int replicas : new int[] {0, 1}) {
        double[] c = cost(replicas, threads);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %,.0f | %.0f | %.0f |%n",
                replicas == 0 ? "default" : "strict (1 replica)",
                threads,
                c[0],
                c[1],
                c[2]));
      }
    }
    Map<String, List<Run>> byMode = new LinkedHashMap<>();
    for (int replicas : new int[] {0, 1}) {
      String mode = replicas == 0 ? "default" : "strict (`confirmingReplicas(1)`)";
      List<Run> runs = new ArrayList<>();
      for (int f = 0; f < failovers; f++) {
        Run r = failover(replicas, f);
        System.out.println(mode + " failover " + (f + 1) + ": " + r);
        runs.add(r);
      }
      byMode.put(mode, runs);
    }
    md.append("\nPer failover, ")
        .append(failovers)
        .append(" failovers per mode, the replica ")
        .append(LAG_MILLIS)
        .append(" ms behind when the primary is killed: min / median / max (total).\n\n")
        .append("| per failover | ")
        .append(String.join(" | ", byMode.keySet()))
        .append(" |\n|---|")
        .append("---:|".repeat(byMode.size()))
        .append("\n");
    String[] rows = {
      "replica behind (bytes)",
      "admissions decided from the detach to the kill (3 kinds)",
      "raw samples a flush confirmed from the detach to the kill",
      "over-admission: sliding log",
      "over-admission: bucketed",
      "over-admission: sum cap (amounts)",
      "raw window: samples acknowledged as stored, missing after",
      "raw window: samples held twice",
      "histogram window: samples a flush confirmed, missing after",
      "histogram window: samples counted twice",
      "keyed fleet window: samples a flush confirmed, missing after",
      "keyed fleet window: samples counted twice",
      "threshold detector: events answered counted, missing after",
      "threshold detector: events answered as an outage, counted after",
      "unconfirmed writes (answered as an outage)",
      "kill to switch (ms)",
      "switch to first answered decision (ms)"
    };
    for (int row = 0; row < rows.length; row++) {
      md.append("| ").append(rows[row]).append(" |");
      for (List<Run> runs : byMode.values()) {
        int k = row;
        md.append(' ').append(stats(runs.stream().mapToLong(r -> r.values()[k]).toArray()));
        md.append(" |");
      }
      md.append('\n');
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%nredis-server %s, Lettuce 6.8 (reconnect delay 10-100 ms), command timeout %d ms;"
                + " sentinels: down after %d ms, quorum 2. %s, load average at start %s, %.0f s"
                + " in all. Command: `benchmarks/failover-report.sh --failovers %d`.%n",
            serverVersion(),
            TIMEOUT.toMillis(),
            LocalSentinelGroup.DOWN_AFTER_MILLIS,
            Instant.now().truncatedTo(ChronoUnit.SECONDS),
            load,
            (System.nanoTime() - started) / 1e9,
            failovers));
    String markdown = md.toString();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println(markdown);
    for (Path doc : docs) {
      DocsBlock.replace(doc, BEGIN, END, markdown);
    }
    System.exit(0);
  }

  /** What one failover cost; {@link #values} in the order of the report's rows. */
  record Run(long[] values) {
    @Override
    public String toString() {
      return Arrays.toString(values);
    }
  }

  private static String stats(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    long total = Arrays.stream(s).sum();
    return String.format(
        Locale.ROOT, "%d / %d / %d (%d)", s[0], s[s.length / 2], s[s.length - 1], total);
  }

  private static String serverVersion() {
    try (RedisProcess p = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      try (StatefulRedisConnection<String, String> c = client.connect(p.uri())) {
        return c.sync()
            .info("server")
            .lines()
            .filter(l -> l.startsWith("redis_version:"))
            .map(l -> l.substring("redis_version:".length()))
            .findFirst()
            .orElse("?");
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  /** Decisions/s, p50 and p99 µs of sliding-log decisions from {@code threads} threads. */
  static double[] cost(int confirmingReplicas, int threads) throws InterruptedException {
    ClientResources resources = LocalSentinelGroup.fastReconnect();
    try (LocalSentinelGroup group = LocalSentinelGroup.start()) {
      RedisClient client = RedisClient.create(resources);
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      try (StatefulRedisConnection<String, String> connection = client.connect(group.uri())) {
        RedisBackend backend =
            RedisBackend.builder(connection)
                .commandTimeout(Duration.ofSeconds(2))
                .outagePolicy(OutagePolicy.THROW)
                .confirmingReplicas(confirmingReplicas)
                .build();
        RateLimiter limiter =
            backend.rateLimiter(
                "cost", RateLimitConfig.builder().limit(100).timeSource(EPOCH).build());
        Histogram latency = new Histogram(3);
        AtomicLong decisions = new AtomicLong();
        for (long phase : new long[] {1_000, 3_000}) {
          boolean measured = phase == 3_000;
          AtomicBoolean stop = new AtomicBoolean();
          List<Thread> workers = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            int offset = t * 97;
            Thread w =
                new Thread(
                    () -> {
                      Histogram mine = new Histogram(3);
                      long n = 0;
                      for (int i = offset; !stop.get(); i++) {
                        long start = System.nanoTime();
                        limiter.tryAcquire("key-" + (i % 1_000));
                        mine.recordValue((System.nanoTime() - start) / 1_000);
                        n++;
                      }
                      if (measured) {
                        synchronized (latency) {
                          latency.add(mine);
                        }
                        decisions.addAndGet(n);
                      }
                    });
            w.start();
            workers.add(w);
          }
          Thread.sleep(phase);
          stop.set(true);
          for (Thread w : workers) {
            w.join();
          }
        }
        return new double[] {
          decisions.get() / 3.0, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99)
        };
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    } finally {
      resources.shutdown();
    }
  }

  /** One key's admissions: (time, amount) pairs in decision order. */
  static final class Admissions {
    final List<long[]> admitted = new ArrayList<>();

    /** The most admitted amount in any window (t - w, t] beyond {@code limit}, or 0. */
    long overAdmission(long windowNanos, long limit) {
      long most = 0;
      long inWindow = 0;
      int first = 0;
      for (long[] a : admitted) {
        inWindow += a[1];
        while (admitted.get(first)[0] <= a[0] - windowNanos) {
          inWindow -= admitted.get(first)[1];
          first++;
        }
        most = Math.max(most, inWindow);
      }
      return Math.max(0, most - limit);
    }

    long between(long from, long to) {
      return admitted.stream().filter(a -> a[0] >= from && a[0] <= to).count();
    }
  }

  static Run failover(int confirmingReplicas, int index) throws Exception {
    ClientResources resources = LocalSentinelGroup.fastReconnect();
    try (LocalSentinelGroup group = LocalSentinelGroup.start()) {
      RedisClient client = RedisClient.create(resources);
      client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
      try (StatefulRedisConnection<String, String> connection = client.connect(group.uri())) {
        RedisBackend backend =
            RedisBackend.builder(connection)
                .commandTimeout(TIMEOUT)
                .outagePolicy(OutagePolicy.THROW)
                .confirmingReplicas(confirmingReplicas)
                .build();
        return underLoad(group, backend, index);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    } finally {
      resources.shutdown();
    }
  }

  private static Run underLoad(LocalSentinelGroup group, RedisBackend backend, int index)
      throws Exception {
    Duration window = Duration.ofSeconds(WINDOW_SECONDS);
    RateLimitConfig limits =
        RateLimitConfig.builder().limit(LIMIT).window(window).timeSource(EPOCH).build();
    RateLimiter log = backend.rateLimiter("log", limits);
    RateLimiter bucketed = backend.bucketedRateLimiter("bucketed", limits);
    SumCap cap =
        backend.sumCap(
            "cap",
            SumCapConfig.builder()
                .cap(BigDecimal.valueOf(10L * LIMIT))
                .scale(0)
                .window(window)
                .timeSource(EPOCH)
                .build());
    String rawName = "raw-" + index;
    RedisRollingWindow raw = backend.window(rawName).length(Duration.ofMinutes(5)).build();
    RedisHistogramWindow histogram =
        backend
            .histogramWindow("histogram-" + index)
            .config(WindowConfig.builder().length(Duration.ofMinutes(5)).build())
            .build();

    ThresholdDetector detector =
        backend.thresholdDetector(
            "threshold",
            ThresholdConfig.builder()
                .threshold(100_000)
                .window(Duration.ofMinutes(5))
                .maxEventsPerKey(100_000)
                .timeSource(EPOCH)
                .build());
    RedisKeyedHistogramWindows keyed =
        backend
            .keyedHistogramWindows("keyed-" + index)
            .config(WindowConfig.builder().length(Duration.ofMinutes(5)).build())
            .build();

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong firstAnswer = new AtomicLong(Long.MAX_VALUE);
    Map<String, Admissions> admissions = new ConcurrentHashMap<>();
    List<Thread> loaders = new ArrayList<>();
    for (int kind = 0; kind < KINDS.length; kind++) {
      for (int k = 0; k < KEYS; k++) {
        int kd = kind;
        String key = "key-" + k;
        Admissions mine = new Admissions();
        admissions.put(KINDS[kind] + "/" + key, mine);
        loaders.add(
            paced(
                stop,
                () -> {
                  long t = EPOCH.nanoTime();
                  boolean allowed;
                  try {
                    allowed =
                        switch (kd) {
                          case 0 -> log.tryAcquire(key, t).allowed();
                          case 1 -> bucketed.tryAcquire(key, t).allowed();
                          default -> cap.tryAdd(key, BigDecimal.TEN, t).allowed();
                        };
                  } catch (RedisUnavailableException outage) {
                    return;
                  }
                  if (t > killedAt.get()) {
                    firstAnswer.accumulateAndGet(t, Math::min);
                  }
                  if (allowed) {
                    mine.admitted.add(new long[] {t, 1});
                  }
                }));
      }
    }
    // the raw window: unique ids; a flush that returns true confirms every sample before it
    AtomicLong rawRecorded = new AtomicLong();
    AtomicLong rawConfirmed = new AtomicLong();
    long[] rawConfirmedAtKill = new long[1];
    loaders.add(
        paced(
            stop,
            () -> {
              long n = rawRecorded.getAndIncrement();
              raw.record("s" + n, n);
              if (n % 20 == 19 && raw.flush(Duration.ofMillis(300))) {
                rawConfirmed.set(n + 1);
              }
            }));
    AtomicLong histRecorded = new AtomicLong();
    AtomicLong histConfirmed = new AtomicLong();
    loaders.add(
        paced(
            stop,
            () -> {
              long n = histRecorded.incrementAndGet();
              histogram.record(n);
              if (n % 20 == 0 && histogram.flush(Duration.ofMillis(300))) {
                histConfirmed.set(n);
              }
            }));
    List<DetectorLoad> detectorLoads = new ArrayList<>();
    List<KeyedLoad> keyedLoads = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      DetectorLoad d = new DetectorLoad(detector, "key-" + k);
      detectorLoads.add(d);
      loaders.add(paced(stop, d::step));
      KeyedLoad kl = new KeyedLoad(keyed, "route-" + k);
      keyedLoads.add(kl);
      loaders.add(paced(stop, kl::step));
    }
    loaders.forEach(Thread::start);

    Thread.sleep(WARMUP_MILLIS);
    RedisProcess old = group.primary();
    RedisProcess replica = group.servers().get(1);
    long replicaOffset = offset(old, true);
    long lagStart = EPOCH.nanoTime();
    long rawBeforeLag = rawConfirmed.get();
    group.detachAndPause(replica);
    Thread.sleep(LAG_MILLIS);
    long behind = offset(old, false) - replicaOffset;
    long lagEnd = EPOCH.nanoTime();
    old.kill();
    // a decision counts as answered after the kill only if timed once the process was gone: one
    // timed between lagEnd and the kill may still have been answered by the old primary
    killedAt.set(EPOCH.nanoTime());
    rawConfirmedAtKill[0] = rawConfirmed.get();
    replica.resume();
    long killNanos = System.nanoTime();
    RedisProcess promoted = group.awaitFailover(old, Duration.ofSeconds(60));
    long switchEpoch = EPOCH.nanoTime();
    long switchNanos = System.nanoTime();
    old.restart();
    RedisClient admin = RedisClient.create();
    try (StatefulRedisConnection<String, String> c = admin.connect(old.uri())) {
      c.sync().replicaof("127.0.0.1", promoted.port());
    }
    Thread.sleep(AFTER_MILLIS);
    stop.set(true);
    for (Thread t : loaders) {
      t.join();
    }
    boolean rawFlushed = raw.flush(Duration.ofSeconds(30));
    boolean histFlushed = histogram.flush(Duration.ofSeconds(30));
    boolean keyedFlushed = keyed.flush(Duration.ofSeconds(30));
    if (rawFlushed) {
      rawConfirmed.set(rawRecorded.get());
    }
    if (histFlushed) {
      histConfirmed.set(histRecorded.get());
    }

    long[] over = new long[KINDS.length];
    long lagAdmissions = 0;
    for (int kind = 0; kind < KINDS.length; kind++) {
      for (int k = 0; k < KEYS; k++) {
        Admissions a = admissions.get(KINDS[kind] + "/key-" + k);
        over[kind] += a.overAdmission(window.toNanos(), LIMIT);
        lagAdmissions += a.between(lagStart, lagEnd);
      }
    }
    long rawLost;
    long rawTwice;
    try (StatefulRedisConnection<String, String> c = admin.connect(promoted.uri())) {
      List<String> members = c.sync().zrange(RedisKeys.window("ringtail", rawName)[0], 0, -1);
      Set<Long> present = new HashSet<>();
      for (String m : members) {
        present.add(Long.parseLong(m.substring(m.indexOf(":s") + 2)));
      }
      rawTwice = members.size() - present.size();
      long lost = 0;
      for (long n = 0; n < rawConfirmed.get(); n++) {
        if (!present.contains(n)) {
          lost++;
        }
      }
      rawLost = lost;
    } finally {
      admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    long histCount = histogram.snapshot().count();
    long histLost = Math.max(0, histConfirmed.get() - histCount);
    long histTwice = Math.max(0, histCount - histRecorded.get());
    histogram.close();
    long keyedLost = 0;
    long keyedTwice = 0;
    for (KeyedLoad kl : keyedLoads) {
      long count = keyed.snapshot(kl.key).count();
      long confirmed = keyedFlushed ? kl.recorded.get() : kl.confirmed.get();
      keyedLost += Math.max(0, confirmed - count);
      keyedTwice += Math.max(0, count - kl.recorded.get());
    }
    keyed.close();
    long eventsLost = 0;
    long eventsCountedUntold = 0;
    for (DetectorLoad d : detectorLoads) {
      eventsLost += d.recheck(d.counted, ThresholdDecision.Outcome.COUNTED);
      eventsCountedUntold += d.recheck(d.failed, ThresholdDecision.Outcome.DUPLICATE);
    }
    long firstAnswerMillis =
        firstAnswer.get() == Long.MAX_VALUE
            ? -1
            : TimeUnit.NANOSECONDS.toMillis(firstAnswer.get() - switchEpoch);
    return new Run(
        new long[] {
          behind,
          lagAdmissions,
          rawConfirmedAtKill[0] - rawBeforeLag,
          over[0],
          over[1],
          over[2],
          rawLost,
          rawTwice,
          histLost,
          histTwice,
          keyedLost,
          keyedTwice,
          eventsLost,
          eventsCountedUntold,
          backend.unconfirmedWrites(),
          TimeUnit.NANOSECONDS.toMillis(switchNanos - killNanos),
          firstAnswerMillis
        });
  }

  /** One key of the threshold detector: a new event id per step, and what each was answered. */
  static final class DetectorLoad {
    final ThresholdDetector detector;
    final String key;
    final List<String> counted = new ArrayList<>();
    final List<String> failed = new ArrayList<>();
    long next;

    DetectorLoad(ThresholdDetector detector, String key) {
      this.detector = detector;
      this.key = key;
    }

    void step() {
      String id = "e" + next++;
      try {
        if (detector.record(key, id, EPOCH.nanoTime()).outcome()
            == ThresholdDecision.Outcome.COUNTED) {
          counted.add(id);
        }
      } catch (RedisUnavailableException outage) {
        failed.add(id);
      }
    }

    /** Records {@code ids} again; how many are answered {@code outcome} (retrying outages). */
    long recheck(List<String> ids, ThresholdDecision.Outcome outcome) throws InterruptedException {
      long n = 0;
      for (String id : ids) {
        for (int attempt = 0; ; attempt++) {
          try {
            if (detector.record(key, id, EPOCH.nanoTime()).outcome() == outcome) {
              n++;
            }
            break;
          } catch (RedisUnavailableException outage) {
            if (attempt == 50) {
              throw outage;
            }
            Thread.sleep(100);
          }
        }
      }
      return n;
    }
  }

  /** One key of the keyed fleet window: samples recorded, and those a flush confirmed. */
  static final class KeyedLoad {
    final RedisKeyedHistogramWindows windows;
    final String key;
    final AtomicLong recorded = new AtomicLong();
    final AtomicLong confirmed = new AtomicLong();

    KeyedLoad(RedisKeyedHistogramWindows windows, String key) {
      this.windows = windows;
      this.key = key;
    }

    void step() {
      long n = recorded.incrementAndGet();
      windows.record(key, n);
      if (n % 20 == 0 && windows.flush(Duration.ofMillis(300))) {
        confirmed.set(n);
      }
    }
  }

  /**
   * The primary's replication offset, or (with {@code ofReplica}) the offset the primary last heard
   * its replica confirm.
   */
  private static long offset(RedisProcess primary, boolean ofReplica) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> c = client.connect(primary.uri())) {
      String info = c.sync().info("replication");
      for (String line : info.lines().toList()) {
        if (!ofReplica && line.startsWith("master_repl_offset:")) {
          return Long.parseLong(line.substring("master_repl_offset:".length()).trim());
        }
        if (ofReplica && line.startsWith("slave0:")) {
          for (String field : line.substring("slave0:".length()).split(",")) {
            if (field.startsWith("offset=")) {
              return Long.parseLong(field.substring("offset=".length()));
            }
          }
        }
      }
      throw new IllegalStateException("no offset in " + info);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** A thread running {@code step} {@value #RATE} times a second until {@code stop}. */
  private static Thread paced(AtomicBoolean stop, Runnable step) {
    long period = TimeUnit.SECONDS.toNanos(1) / RATE;
    return new Thread(
        () -> {
          long next = System.nanoTime();
          while (!stop.get()) {
            step.run();
            next += period;
            long now = System.nanoTime();
            if (now - next > TimeUnit.MILLISECONDS.toNanos(50)) {
              next = now;
            }
            LockSupport.parkNanos(next - now);
          }
        });
  }
}
