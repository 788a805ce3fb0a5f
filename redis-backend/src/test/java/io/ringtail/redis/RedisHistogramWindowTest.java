package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testkit.ExactWindowModel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The histogram window on a dedicated real redis-server: several processes (windows with their own
 * publisher ids) merging into one fleet view, retried publications, outages (SIGSTOP), process
 * death, freshness, expiry and argument checks.
 */
class RedisHistogramWindowTest {
  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static final long T0 = 1_000_000_000_000_000L;
  private RedisProcess server;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private RedisBackend backend;
  private RedisClient patientClient;

  @BeforeEach
  void start() {
    server = RedisProcess.start();
    client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    connection = client.connect(server.uri());
    backend = RedisBackend.builder(connection).commandTimeout(TIMEOUT).build();
  }

  @AfterEach
  void stop() {
    connection.close();
    RedisTestSupport.shutdown(client);
    if (patientClient != null) {
      RedisTestSupport.shutdown(patientClient);
    }
    server.close();
  }

  /**
   * A window whose ticker never comes while a test runs (unless the test sets an interval): only
   * the test's own calls publish and merge, so what they send and read is the test's to count.
   */
  private RedisHistogramWindow.Builder window(String name, ManualTimeSource time) {
    return backend.histogramWindow(name).timeSource(time).publishInterval(Duration.ofMinutes(1));
  }

  private static void awaitFlushed(RedisHistogramWindow w) {
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "pending deltas published",
        () -> w.flush(Duration.ofMillis(500)),
        () -> w.stats().toString());
  }

  /** A snapshot once the breaker, opened by a fault, lets every read through again. */
  private static RedisHistogramSnapshot snapshotOnceClosed(RedisHistogramWindow w) {
    RedisHistogramSnapshot[] out = new RedisHistogramSnapshot[1];
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "a snapshot",
        () -> {
          try {
            out[0] = w.snapshot();
            return true;
          } catch (RedisUnavailableException e) {
            return false;
          }
        });
    return out[0];
  }

  @Test
  void fleetOfProcesses_matchesExactModel() {
    patientClient = RedisTestSupport.client();
    backend =
        RedisBackend.builder(RedisTestSupport.connect(patientClient, server))
            .commandTimeout(Duration.ofSeconds(2))
            .build();
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("fleet");
    List<RedisHistogramWindow> processes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      processes.add(window(name, time).publishInterval(Duration.ofMillis(700)).build());
    }
    RedisHistogramWindow observer = window(name, time).build();
    ExactWindowModel model = new ExactWindowModel();
    SplittableRandom random = new SplittableRandom(13);
    for (int op = 0; op < 6_000; op++) {
      int dice = random.nextInt(100);
      if (dice < 8) {
        time.advance(Duration.ofMillis(random.nextInt(0, 2_500)));
      } else if (dice < 98) {
        long value = (long) Math.exp(12 + 1.5 * random.nextDouble());
        processes.get(random.nextInt(processes.size())).record(value);
        model.record(value, time.nanoTime());
      } else {
        processes.forEach(RedisHistogramWindowTest::awaitFlushed);
        RedisHistogramSnapshot s = observer.snapshot();
        ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
        assertThat(s.count()).isEqualTo(exact.count());
        assertThat(s.sum()).isEqualTo(exact.sum());
        if (exact.count() > 0) {
          assertThat(s.min()).isEqualTo(exact.min());
          assertThat(s.max()).isEqualTo(exact.max());
          for (double p : new double[] {50, 95, 99}) {
            long expected = exact.valueAtPercentile(p);
            assertThat(s.valueAtPercentile(p)).isCloseTo(expected, within(expected * 0.01));
          }
        }
      }
    }
    for (RedisHistogramWindow p : processes) {
      assertThat(p.stats().retriedDuplicates()).isZero();
      assertThat(p.stats().failedCalls()).isZero();
    }
  }

  @Test
  void retriedPublish_whoseFirstCallLanded_countsOnce() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow w = window(RedisTestSupport.uniqueName("retry"), time).build();
    w.record(1_000_000);
    assertThat(w.flush(Duration.ofSeconds(2))).as("scripts loaded").isTrue();
    for (int i = 1; i <= 1_000; i++) {
      w.record(i);
    }
    try (StatefulRedisConnection<String, String> admin = client.connect(server.uri())) {
      // the server holds every call for 700 ms: this call times out here, then runs
      admin.sync().clientPause(700);
      assertThat(w.flush(Duration.ofMillis(300))).isFalse();
      assertThat(w.stats().failedCalls()).isPositive();
    }
    awaitFlushed(w);
    assertThat(w.stats().retriedDuplicates())
        .as("the retry found its delta applied: %s", w.stats())
        .isPositive();
    RedisHistogramSnapshot s = snapshotOnceClosed(w);
    assertThat(s.count()).isEqualTo(1_001);
    assertThat(s.sum()).isEqualTo(1_500_500);
    assertThat(w.stats().published()).isEqualTo(1_001);
  }

  @Test
  void outage_keepsBuckets_andPublishesThemAfterRecovery() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow w = window(RedisTestSupport.uniqueName("outage"), time).build();
    server.pause();
    try {
      for (int second = 0; second < 10; second++) {
        for (int i = 0; i < 100; i++) {
          w.record(1_000 + second);
        }
        time.advance(Duration.ofSeconds(1));
      }
      assertThat(w.flush(Duration.ofMillis(300))).isFalse();
      assertThat(w.stats().pendingBuckets()).isEqualTo(10);
      assertThat(w.stats().pendingSamples()).isEqualTo(1_000);
    } finally {
      server.resume();
    }
    awaitFlushed(w);
    RedisHistogramSnapshot s = snapshotOnceClosed(w);
    assertThat(s.count()).isEqualTo(1_000);
    assertThat(s.min()).isEqualTo(1_000);
    assertThat(s.max()).isEqualTo(1_009);
    assertThat(w.stats().pendingSamples()).isZero();
    assertThat(w.stats().dropped()).isZero();
  }

  @Test
  void outageBeyondTheBound_dropsOldestBuckets_andCountsThem() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow w =
        window(RedisTestSupport.uniqueName("bounded"), time).maxPendingBuckets(3).build();
    server.kill();
    try {
      for (int second = 0; second < 6; second++) {
        for (int i = 0; i < 10; i++) {
          w.record(second);
        }
        time.advance(Duration.ofSeconds(1));
        w.flush(Duration.ofMillis(1));
        w.lastRound().join();
      }
    } finally {
      server.restart();
    }
    awaitFlushed(w);
    RedisHistogramWindowStats stats = w.stats();
    RedisHistogramSnapshot s = snapshotOnceClosed(w);
    assertThat(stats.dropped()).isEqualTo(30);
    assertThat(s.count() + stats.dropped()).isEqualTo(60);
    assertThat(s.min()).isEqualTo(3);
  }

  @Test
  void bucketsOlderThanTheWindow_areExpired_notSent() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow w = window(RedisTestSupport.uniqueName("expired"), time).build();
    server.pause();
    try {
      for (int i = 0; i < 25; i++) {
        w.record(7);
      }
      w.flush(Duration.ofMillis(1));
      w.lastRound().join();
      assertThat(w.stats().failedCalls()).isPositive();
      time.advance(Duration.ofSeconds(61));
    } finally {
      server.resume();
    }
    awaitFlushed(w);
    assertThat(w.stats().expired()).isEqualTo(25);
    assertThat(snapshotOnceClosed(w).isEmpty()).isTrue();
  }

  @Test
  void deadProcess_losesOnlyWhatItRecordedSinceItsLastPublication() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("death");
    // a ticker that stays quiet while the test runs: its flushes are the publications
    RedisHistogramWindow dying = window(name, time).publishInterval(Duration.ofMinutes(1)).build();
    int recorded = 0;
    int atLastPublication = 0;
    for (int i = 0; i < 550; i++) {
      dying.record(100);
      recorded++;
      if (i % 100 == 99) {
        assertThat(dying.flush(Duration.ofSeconds(2))).isTrue();
        atLastPublication = recorded;
      }
      time.advance(Duration.ofMillis(10));
    }
    // the process dies here: no flush, nothing more sent
    RedisHistogramSnapshot s = window(name, time).build().snapshot();
    assertThat(atLastPublication).isEqualTo(500);
    assertThat(recorded - s.count()).as("lost samples").isEqualTo(recorded - atLastPublication);
  }

  @Test
  void record_neverStartsAPublicationRound_theTickerDoes() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow quiet =
        window(RedisTestSupport.uniqueName("quiet"), time)
            .publishInterval(Duration.ofMinutes(1))
            .build();
    Object before = quiet.lastRound();
    for (int i = 0; i < 10_000; i++) {
      quiet.record(i);
      if (i % 100 == 0) {
        time.advance(Duration.ofSeconds(5));
      }
    }
    assertThat(quiet.lastRound()).as("no round started by a record").isSameAs(before);
    assertThat(quiet.stats().publishCalls()).isZero();

    RedisHistogramWindow ticking =
        window(RedisTestSupport.uniqueName("ticking"), time)
            .publishInterval(Duration.ofMillis(50))
            .build();
    for (int i = 0; i < 1_000; i++) {
      ticking.record(i);
    }
    RedisTestSupport.await(
        Duration.ofSeconds(20),
        "the ticker published every sample",
        () -> ticking.stats().published() == 1_000,
        () -> ticking.stats().toString());
    assertThat(ticking.close()).isTrue();
  }

  /**
   * A round stuck on a stopped server (a command timeout longer than the test) does not stop the
   * ticks from draining the recorder into memory; once the server is back every sample is published
   * once.
   */
  @Test
  void ticks_whileARoundWaitsForRedis_drainIntoMemory() {
    patientClient = RedisTestSupport.client();
    RedisHistogramWindow w =
        RedisBackend.builder(RedisTestSupport.connect(patientClient, server))
            .commandTimeout(Duration.ofSeconds(60))
            .build()
            .histogramWindow(RedisTestSupport.uniqueName("stuck"))
            .publishInterval(Duration.ofMillis(50))
            .build();
    RedisTestSupport.assertTicksDrainWhileARoundWaits(
        server,
        i -> w.record(1 + i),
        w::lastRound,
        w::stats,
        () -> w.flush(Duration.ofMillis(500)));
    assertThat(w.close()).isTrue();
  }

  @Test
  void snapshot_reportsTheOldestPublisherAsItsFreshness() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("fresh");
    RedisHistogramWindow a = window(name, time).build();
    RedisHistogramWindow b = window(name, time).build();
    a.record(1);
    assertThat(a.flush(Duration.ofSeconds(2))).isTrue();
    long aPublished = time.nanoTime();
    time.advance(Duration.ofSeconds(5));
    b.record(2);
    assertThat(b.flush(Duration.ofSeconds(2))).isTrue();
    RedisHistogramSnapshot s = b.snapshot();
    assertThat(s.publishers()).isEqualTo(2);
    assertThat(s.oldestPublicationNanos()).isEqualTo(aPublished);
    assertThat(s.stalenessNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());
    a.record(3);
    assertThat(a.snapshot().stalenessNanos()).isZero();
  }

  @Test
  void emptyFleet_isFreshAndEmpty() {
    RedisHistogramSnapshot s =
        window(RedisTestSupport.uniqueName("none"), new ManualTimeSource(T0)).build().snapshot();
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.publishers()).isZero();
    assertThat(s.stalenessNanos()).isZero();
  }

  @Test
  void keys_expireJustPastTheWindow_onTheServerClock() {
    String name = RedisTestSupport.uniqueName("ttl");
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();
    RedisHistogramWindow w = backend.histogramWindow(name).config(config).build();
    w.record(5);
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    long bucket = Math.floorDiv(w.timeSource().nanoTime(), Duration.ofSeconds(1).toNanos());
    FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
    int g = FleetKeys.group("");
    long found = 0;
    for (long b = bucket - 1; b <= bucket; b++) {
      long ttl = connection.sync().pttl(keys.bucket(g, "", b));
      if (ttl > 0) {
        found++;
        // leaves the window 9 to 10 s after its bucket starts, then 1 s of grace
        assertThat(ttl).isBetween(8_000L, 11_100L);
      }
    }
    assertThat(found).isEqualTo(1);
    for (String state : new String[] {keys.stamp(g), keys.table(g), keys.head(g)}) {
      assertThat(connection.sync().pttl(state)).as(state).isBetween(10_000L, 11_100L);
    }
  }

  @Test
  void snapshot_readsSixtyMergedBucketsOfManyPublishers_withTwoCommands_andNoScript() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("onecall");
    List<RedisHistogramWindow> processes = new ArrayList<>();
    for (int p = 0; p < 5; p++) {
      processes.add(window(name, time).build());
    }
    long count = 0;
    for (int second = 0; second < 60; second++) {
      for (RedisHistogramWindow p : processes) {
        for (int i = 1; i <= 50; i++) {
          p.record(1_000L * i + second);
          count++;
        }
        assertThat(p.flush(Duration.ofSeconds(2))).isTrue();
      }
      time.advance(Duration.ofSeconds(1));
    }
    time.advance(Duration.ofNanos(-1));
    connection.sync().configResetstat();
    RedisHistogramSnapshot s = processes.get(0).snapshot();
    assertThat(s.count()).isEqualTo(count);
    assertThat(s.publishers()).isEqualTo(5);
    String stats = connection.sync().info("commandstats");
    // the head, then the 60 merged buckets: whatever the number of publishers
    assertThat(stats)
        .contains("cmdstat_mget:calls=2,")
        .doesNotContain("cmdstat_evalsha")
        .doesNotContain("cmdstat_eval:");
  }

  @Test
  void deadPublisher_leavesTheFreshness_onceItsBucketsLeaveTheWindow() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("gone");
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();
    RedisHistogramWindow dead = window(name, time).config(config).build();
    RedisHistogramWindow alive = window(name, time).config(config).build();
    long deadBucket = Math.floorDiv(time.nanoTime(), Duration.ofSeconds(1).toNanos());
    dead.record(1);
    assertThat(dead.flush(Duration.ofSeconds(2))).isTrue();
    for (int second = 0; second < 9; second++) {
      alive.record(2);
      assertThat(alive.flush(Duration.ofSeconds(2))).isTrue();
      time.advance(Duration.ofSeconds(1));
    }
    RedisHistogramSnapshot before = alive.snapshot();
    assertThat(before.publishers()).isEqualTo(2);
    assertThat(before.oldestPublicationNanos()).isEqualTo(T0);

    time.advance(Duration.ofSeconds(1));
    alive.record(2);
    assertThat(alive.flush(Duration.ofSeconds(2))).isTrue();
    RedisHistogramSnapshot after = alive.snapshot();
    assertThat(after.publishers())
        .as("the dead process's only bucket has left the window")
        .isEqualTo(1);
    assertThat(after.stalenessNanos()).isZero();

    // the mergers' table forgets the dead process a window (and the grace) after it went silent
    FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
    String table = keys.table(FleetKeys.group(""));
    assertThat(FleetCodec.Table.decode(bytes(table)).publishers()).hasSize(2);
    for (int second = 0; second < 12; second++) {
      time.advance(Duration.ofSeconds(1));
      alive.record(2);
      assertThat(alive.flush(Duration.ofSeconds(2))).isTrue();
    }
    assertThat(FleetCodec.Table.decode(bytes(table)).publishers()).hasSize(1);
  }

  private byte[] bytes(String key) {
    try (StatefulRedisConnection<byte[], byte[]> raw =
        client.connect(ByteArrayCodec.INSTANCE, server.uri())) {
      return raw.sync().get(key.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void recordingThreads_withConcurrentSnapshots_loseNothing() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow w =
        window(RedisTestSupport.uniqueName("stress"), time)
            .publishInterval(Duration.ofMillis(1))
            .build();
    int threads = 4;
    int perThread = 100_000;
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long value = t + 1;
        writers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    w.record(value);
                  }
                }));
      }
      Future<?> ticker =
          pool.submit(
              () -> {
                while (!done.get()) {
                  time.advance(Duration.ofMillis(3));
                  Thread.onSpinWait();
                }
              });
      Future<?> reader =
          pool.submit(
              () -> {
                while (!done.get()) {
                  assertThat(w.snapshot().count()).isLessThanOrEqualTo((long) threads * perThread);
                }
              });
      for (Future<?> f : writers) {
        f.get();
      }
      done.set(true);
      ticker.get();
      reader.get();
    } finally {
      pool.shutdownNow();
    }
    awaitFlushed(w);
    RedisHistogramWindowStats stats = w.stats();
    // the clock races through the window while rounds wait for merges: what waits longer than
    // the bound allows is dropped, and counted; nothing goes uncounted
    assertThat(stats.pendingSamples()).isZero();
    assertThat(stats.published() + stats.expired() + stats.dropped())
        .as("%s", stats)
        .isEqualTo((long) threads * perThread);
    assertThat(stats.retriedDuplicates()).isZero();
  }

  @Test
  void scriptFlush_isRecoveredByReloading() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisHistogramWindow w = window(RedisTestSupport.uniqueName("noscript"), time).build();
    w.record(1);
    assertThat(w.snapshot().count()).isEqualTo(1);
    connection.sync().scriptFlush();
    long reloads = w.stats().scriptReloads();
    w.record(2);
    assertThat(w.snapshot().count()).isEqualTo(2);
    assertThat(w.stats().scriptReloads()).isGreaterThan(reloads);
  }

  @Test
  void snapshot_whileRedisIsDown_throwsWithinTheTimeout() {
    RedisHistogramWindow w =
        window(RedisTestSupport.uniqueName("down"), new ManualTimeSource(T0)).build();
    w.record(1);
    server.pause();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(w::snapshot).isInstanceOf(RedisUnavailableException.class);
      assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(2).toNanos());
      long before = System.nanoTime();
      for (int i = 0; i < 1_000; i++) {
        w.record(i);
      }
      assertThat(System.nanoTime() - before)
          .as("records never wait for Redis")
          .isLessThan(Duration.ofMillis(150).toNanos());
    } finally {
      server.resume();
    }
  }

  @Test
  void builder_rejectsBadArguments_namingThem() {
    assertThatThrownBy(() -> backend.histogramWindow(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> backend.histogramWindow(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    RedisHistogramWindow.Builder b = backend.histogramWindow("x");
    assertThatThrownBy(() -> b.publishInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("publishInterval")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> b.maxPendingBuckets(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPendingBuckets")
        .hasMessageContaining("but was 0");
    assertThatThrownBy(() -> b.config(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("config");
    assertThatThrownBy(() -> b.timeSource(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("timeSource");
    assertThatThrownBy(() -> b.scheduler(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("scheduler");
    RedisHistogramWindow w = b.timeSource(new ManualTimeSource(T0)).build();
    assertThatThrownBy(() -> w.flush(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
  }
}
