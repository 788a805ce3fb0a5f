package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.report.FailoverLoads.Admissions;
import io.ringtail.benchmarks.report.FailoverLoads.DetectorLoad;
import io.ringtail.benchmarks.report.FailoverLoads.KeyedLoad;
import io.ringtail.benchmarks.toolkit.RedisKeys;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One failover under load, on a fresh {@link LocalSentinelGroup} this class starts (see {@link
 * FailoverReport} for the steps and what is measured): the loads, the detach, kill and promotion,
 * and what each window and decision kept or lost. Not thread-safe; one run at a time.
 */
final class FailoverRun {
  private FailoverRun() {}

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

  /** What one failover cost; {@link #values} in the order of the report's rows. */
  record Run(long[] values) {
    @Override
    public String toString() {
      return Arrays.toString(values);
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
