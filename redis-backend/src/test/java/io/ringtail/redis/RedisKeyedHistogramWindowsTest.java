package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.ringtail.ManualTimeSource;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testkit.ExactWindowModel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Keyed histogram windows on a dedicated real redis-server: several processes (each its own backend
 * and connection) merging per key, one publication round for every key, retried batches, outages
 * (SIGSTOP), publication off the recording thread, key bounds, expiry and argument checks.
 */
class RedisKeyedHistogramWindowsTest {
  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static final long T0 = 1_000_000_000_000_000L;

  /** An interval no ticker reaches while a test runs: only the test's own calls publish. */
  private static final Duration QUIET = Duration.ofMinutes(1);

  private static final String[] ROUTES = {"GET /", "GET /cart", "POST /checkout", "GET /search"};
  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();
  private RedisBackend backend;
  private StatefulRedisConnection<String, String> admin;

  @BeforeEach
  void start() {
    server = RedisProcess.start();
    backend = backend(TIMEOUT);
    admin = clients.get(0).connect(server.uri());
  }

  /** A backend over a connection of its own: one process of the fleet. */
  private RedisBackend backend(Duration timeout) {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(timeout));
    clients.add(client);
    return RedisBackend.builder(client.connect(server.uri())).commandTimeout(timeout).build();
  }

  @AfterEach
  void stop() {
    for (RedisClient c : clients) {
      RedisTestSupport.shutdown(c);
    }
    server.close();
  }

  /**
   * Keyed windows of {@code name} on {@code b}, timed by {@code time}, that publish only when the
   * test flushes or takes a snapshot.
   */
  private static RedisKeyedHistogramWindows quiet(RedisBackend b, String name, TimeSource time) {
    return b.keyedHistogramWindows(name).timeSource(time).publishInterval(QUIET).build();
  }

  private static void awaitFlushed(RedisKeyedHistogramWindows w) {
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "pending deltas published",
        () -> w.flush(Duration.ofMillis(500)),
        () -> w.stats().toString());
  }

  private static WindowSnapshot snapshotOnceClosed(RedisKeyedHistogramWindows w, String key) {
    WindowSnapshot[] out = new WindowSnapshot[1];
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "a snapshot",
        () -> {
          try {
            out[0] = w.snapshot(key);
            return true;
          } catch (RedisUnavailableException e) {
            return false;
          }
        });
    return out[0];
  }

  private static void assertMatches(WindowSnapshot s, ExactWindowModel model) {
    ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
    assertThat(s.count()).as("count").isEqualTo(exact.count());
    assertThat(s.sum()).as("sum").isEqualTo(exact.sum());
    if (exact.count() > 0) {
      assertThat(s.min()).isEqualTo(exact.min());
      assertThat(s.max()).isEqualTo(exact.max());
      for (double p : new double[] {50, 95, 99}) {
        long expected = exact.valueAtPercentile(p);
        assertThat(s.valueAtPercentile(p)).isCloseTo(expected, within(expected * 0.01));
      }
    } else {
      assertThat(s.isEmpty()).isTrue();
    }
  }

  @Test
  void fleetOfProcesses_perKey_matchesExactModels() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("fleet");
    List<RedisKeyedHistogramWindows> processes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      processes.add(
          backend(Duration.ofSeconds(2))
              .keyedHistogramWindows(name)
              .timeSource(time)
              .publishInterval(Duration.ofMillis(700))
              .build());
    }
    // A reader with a generous timeout: this test checks what is counted, and a snapshot of many
    // buckets on a loaded machine took over 200 ms, failed and opened the reader's breaker.
    RedisKeyedHistogramWindows observer =
        backend(Duration.ofSeconds(2)).keyedHistogramWindows(name).timeSource(time).build();
    Map<String, ExactWindowModel> models = new HashMap<>();
    SplittableRandom random = new SplittableRandom(25);
    int checks = 0;
    for (int op = 0; op < 8_000; op++) {
      int dice = random.nextInt(100);
      if (dice < 8) {
        time.advance(Duration.ofMillis(random.nextInt(0, 2_500)));
      } else if (dice < 9) {
        time.advance(Duration.ofMillis(random.nextInt(0, 70_000)));
      } else if (dice < 98) {
        String key = ROUTES[random.nextInt(ROUTES.length)];
        long value = (long) Math.exp(12 + 1.5 * random.nextDouble());
        processes.get(random.nextInt(processes.size())).record(key, value);
        models.computeIfAbsent(key, k -> new ExactWindowModel()).record(value, time.nanoTime());
      } else {
        processes.forEach(RedisKeyedHistogramWindowsTest::awaitFlushed);
        String key = ROUTES[random.nextInt(ROUTES.length)];
        assertMatches(
            observer.snapshot(key), models.computeIfAbsent(key, k -> new ExactWindowModel()));
        checks++;
      }
    }
    processes.forEach(RedisKeyedHistogramWindowsTest::awaitFlushed);
    Map<String, WindowSnapshot> all = observer.snapshots();
    for (String key : ROUTES) {
      ExactWindowModel model = models.computeIfAbsent(key, k -> new ExactWindowModel());
      WindowSnapshot s = observer.snapshot(key);
      assertMatches(s, model);
      if (s.count() > 0) {
        assertThat(all).containsKey(key);
        assertMatches(all.get(key), model);
      }
    }
    assertThat(checks).isGreaterThan(50);
    for (RedisKeyedHistogramWindows p : processes) {
      assertThat(p.stats().retriedDuplicates()).isZero();
      assertThat(p.stats().failedCalls()).isZero();
    }
  }

  @Test
  void docsExample_recordsPerRoute_andReadsTheFleetPerRoute() {
    RedisBackend redis = backend;
    long latencyNanos = 7_000_000;
    // docs:keyed-fleet-windows:start
    RedisKeyedHistogramWindows routes =
        redis
            .keyedHistogramWindows("http-latency")
            .config(WindowConfig.defaults()) // per key: 60 s in 60 buckets, 2 significant digits
            .maximumKeys(1_000) // keys this process holds at once (default)
            .build();
    routes.record("GET /checkout", latencyNanos); // local, no Redis call, no publication work
    RedisHistogramSnapshot checkout = routes.snapshot("GET /checkout"); // the fleet's, one route
    checkout.valueAtPercentile(95);
    Map<String, WindowSnapshot> everyRoute = routes.snapshots(); // every route of the fleet
    // docs:keyed-fleet-windows:end
    assertThat(checkout.count()).isEqualTo(1);
    assertThat(checkout.valueAtPercentile(95)).isCloseTo(7_000_000, within(70_000.0));
    assertThat(everyRoute).containsOnlyKeys("GET /checkout");
    assertThat(routes.close()).isTrue();
  }

  @Test
  void snapshots_listAKeyAsLongAsItHasSamplesInTheWindow() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w = quiet(backend, RedisTestSupport.uniqueName("listed"), time);
    // published every second for 14 s: indexed once, in the first second (a quarter window is 15)
    for (int second = 0; second < 15; second++) {
      w.record("GET /", second);
      assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
      time.advance(Duration.ofSeconds(1));
    }
    time.advance(Duration.ofSeconds(50));
    Map<String, WindowSnapshot> all = w.snapshots();
    assertThat(all).containsOnlyKeys("GET /");
    assertThat(all.get("GET /").count()).isEqualTo(w.snapshot("GET /").count()).isEqualTo(9);
    time.advance(Duration.ofSeconds(10));
    assertThat(w.snapshots()).as("every sample has left the window").isEmpty();
  }

  @Test
  void aLateRetryOfAMergedBatch_isNotCountedTwice_andTheMergeDeletesIt() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("merged");
    FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
    int g = FleetKeys.group("k");
    // another process holds the group's lease: this one's reads publish but never merge
    admin.sync().set(keys.lease(g), "elsewhere");
    RedisKeyedHistogramWindows a = quiet(backend(TIMEOUT), name, time);
    RedisKeyedHistogramWindows b = quiet(backend(TIMEOUT), name, time);
    for (int i = 1; i <= 10; i++) {
      a.record("k", i);
    }
    assertThat(a.snapshot("k").isEmpty()).as("published, not merged yet").isTrue();
    Map<byte[], byte[]> inbox;
    try (StatefulRedisConnection<byte[], byte[]> raw =
        clients.get(0).connect(ByteArrayCodec.INSTANCE, server.uri())) {
      byte[] inboxKey = keys.inbox(g).getBytes(StandardCharsets.UTF_8);
      inbox = raw.sync().hgetall(inboxKey);
      assertThat(inbox).as("a's one batch and its marker").hasSize(2);
      b.record("k", 100);
      assertThat(b.flush(Duration.ofSeconds(2))).as("a flush merges, lease or not").isTrue();
      assertThat(admin.sync().hlen(keys.inbox(g))).isZero();
      assertThat(b.snapshot("k").count()).isEqualTo(11);

      // a retry whose first call landed before the merge lands again after it
      Map.Entry<byte[], byte[]> late =
          inbox.entrySet().stream()
              .filter(e -> !new String(e.getKey(), StandardCharsets.UTF_8).startsWith("#"))
              .findFirst()
              .orElseThrow();
      raw.sync().hset(inboxKey, late.getKey(), late.getValue());
      b.record("k", 1_000);
      assertThat(b.flush(Duration.ofSeconds(2))).isTrue();
      assertThat(admin.sync().hlen(keys.inbox(g))).as("the duplicate deleted").isZero();
      for (RedisKeyedHistogramWindows reader :
          List.of(a, b, backend.keyedHistogramWindows(name).timeSource(time).build())) {
        WindowSnapshot s = reader.snapshot("k");
        assertThat(s.count()).isEqualTo(12);
        assertThat(s.sum()).isEqualTo(55 + 100 + 1_000);
      }
    }
  }

  @Test
  void snapshot_showsPublishersAndTheirFreshness() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("fresh");
    RedisKeyedHistogramWindows a = backend.keyedHistogramWindows(name).timeSource(time).build();
    RedisKeyedHistogramWindows b = backend.keyedHistogramWindows(name).timeSource(time).build();
    a.record("k", 1);
    assertThat(a.flush(Duration.ofSeconds(2))).isTrue();
    long aPublished = time.nanoTime();
    time.advance(Duration.ofSeconds(5));
    b.record("k", 2);
    assertThat(b.flush(Duration.ofSeconds(2))).isTrue();
    RedisHistogramSnapshot s = b.snapshot("k");
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.publishers()).isEqualTo(2);
    assertThat(s.oldestPublicationNanos()).isEqualTo(aPublished);
    assertThat(b.snapshot("other").isEmpty()).isTrue();
    assertThat(b.snapshot("other").publishers()).isZero();
  }

  @Test
  void retriedBatch_whoseFirstCallsLanded_countsOnce() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w = quiet(backend, RedisTestSupport.uniqueName("retry"), time);
    w.record("warm", 1);
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    long sum = 0;
    for (int i = 1; i <= 1_000; i++) {
      w.record(ROUTES[i % ROUTES.length], i);
      sum += i;
    }
    // the server holds every call for 700 ms: the batch times out here, then runs
    admin.sync().clientPause(700);
    assertThat(w.flush(Duration.ofMillis(300))).isFalse();
    assertThat(w.stats().failedCalls()).isPositive();
    awaitFlushed(w);
    long groups = Arrays.stream(ROUTES).mapToInt(FleetKeys::group).distinct().count();
    assertThat(w.stats().retriedDuplicates())
        .as("each group's retried batch found itself stored: %s", w.stats())
        .isEqualTo(groups);
    long count = 0;
    long total = 0;
    for (String route : ROUTES) {
      WindowSnapshot s = w.snapshot(route);
      count += s.count();
      total += s.sum();
    }
    assertThat(count).isEqualTo(1_000);
    assertThat(total).isEqualTo(sum);
    assertThat(w.stats().published()).isEqualTo(1_001);
  }

  @Test
  void outage_keepsDeltas_andPublishesThemAfterRecovery() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w = quiet(backend, RedisTestSupport.uniqueName("outage"), time);
    server.pause();
    try {
      for (int second = 0; second < 10; second++) {
        for (int i = 0; i < 100; i++) {
          w.record(ROUTES[i % 2], 1_000 + second);
        }
        time.advance(Duration.ofSeconds(1));
      }
      assertThat(w.flush(Duration.ofMillis(300))).isFalse();
      assertThat(w.stats().pendingBuckets()).isEqualTo(20);
      assertThat(w.stats().pendingSamples()).isEqualTo(1_000);
    } finally {
      server.resume();
    }
    awaitFlushed(w);
    WindowSnapshot s = snapshotOnceClosed(w, ROUTES[1]);
    assertThat(s.count()).isEqualTo(500);
    assertThat(s.min()).isEqualTo(1_000);
    assertThat(s.max()).isEqualTo(1_009);
    assertThat(w.stats().published()).isEqualTo(1_000);
    assertThat(w.stats().dropped()).isZero();
  }

  /**
   * A round stuck on a stopped server (a command timeout longer than the test) does not stop the
   * ticks from draining the recorders into memory, so a rotation always finds its previous bucket
   * drained; once the server is back every sample is published once.
   */
  @Test
  void ticks_whileARoundWaitsForRedis_drainIntoMemory() {
    RedisBackend patient = backend(Duration.ofSeconds(60));
    RedisKeyedHistogramWindows w =
        patient
            .keyedHistogramWindows(RedisTestSupport.uniqueName("stuck"))
            .publishInterval(Duration.ofMillis(50))
            .build();
    RedisTestSupport.assertTicksDrainWhileARoundWaits(
        server,
        i -> w.record(ROUTES[i % ROUTES.length], 1 + i),
        w::lastRound,
        w::stats,
        () -> w.flush(Duration.ofMillis(500)));
    w.close();
  }

  /**
   * A scheduler whose ticks the test runs by hand: the windows' tickers never run by themselves.
   */
  /**
   * Keyed windows of {@code name} on a backend of their own whose ticks {@code scheduler} keeps for
   * the test to run ({@link #handTicked(List)}); an interval of 20 s keeps a lease taken for the
   * test however slow the machine.
   */
  private RedisKeyedHistogramWindows handTicked(
      String name, TimeSource time, ScheduledThreadPoolExecutor scheduler) {
    return backend(TIMEOUT)
        .keyedHistogramWindows(name)
        .timeSource(time)
        .publishInterval(Duration.ofSeconds(20))
        .scheduler(scheduler)
        .build();
  }

  private static ScheduledThreadPoolExecutor handTicked(List<Runnable> tasks) {
    return new ScheduledThreadPoolExecutor(1) {
      @Override
      public ScheduledFuture<?> scheduleAtFixedRate(
          Runnable task, long delay, long period, TimeUnit unit) {
        tasks.add(task);
        return super.schedule(() -> {}, 1, TimeUnit.DAYS);
      }
    };
  }

  /**
   * The merger dies (its process abandoned mid-run, like a kill -9: no flush, no release) with
   * batches of another process waiting in the inbox. Once its lease lapses (deleted here, as its
   * TTL of one interval would), the other process's next tick takes the lease and merges: every
   * sample counted once, the dead one's merged samples kept.
   */
  @Test
  void mergerDies_theNextTickAfterItsLeaseLapsesTakesOver_losingNothingCountingNothingTwice()
      throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("takeover");
    FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
    int g = FleetKeys.group("k");
    List<Runnable> aTicks = new ArrayList<>();
    List<Runnable> bTicks = new ArrayList<>();
    ScheduledThreadPoolExecutor aScheduler = handTicked(aTicks);
    ScheduledThreadPoolExecutor bScheduler = handTicked(bTicks);
    try {
      // ticks run by hand; a long interval keeps a's lease for the test however slow the machine
      RedisKeyedHistogramWindows a = handTicked(name, time, aScheduler);
      RedisKeyedHistogramWindows b = handTicked(name, time, bScheduler);
      a.record("k", 1);
      assertThat(a.flush(Duration.ofSeconds(2))).isTrue(); // a takes the lease
      String aToken = admin.sync().get(keys.lease(g));
      assertThat(aToken).isNotNull();
      assertThat(admin.sync().pttl(keys.lease(g)))
          .as("a lease lasts one interval")
          .isBetween(10_000L, 20_000L);
      time.advance(Duration.ofSeconds(1));
      for (int i = 0; i < 100; i++) {
        b.record("k", 10);
      }
      time.advance(Duration.ofSeconds(1)); // b's bucket closes: its tick sends it
      // a tick: b's batch into the inbox; b holds no lease, merges nothing
      b.tick().get(5, TimeUnit.SECONDS);
      assertThat(admin.sync().hlen(keys.inbox(g))).as("b's batch and its marker").isEqualTo(2);

      // a dies: its client goes, its ticks never run again, its lease lapses
      RedisTestSupport.shutdown(clients.get(1));
      admin.sync().del(keys.lease(g));
      for (int i = 0; i < 50; i++) {
        b.record("k", 20);
      }
      time.advance(Duration.ofSeconds(1));
      // one tick: b's next batch, the lease taken with it, and b's merge
      b.tick().get(5, TimeUnit.SECONDS);
      assertThat(admin.sync().get(keys.lease(g))).as("b took the lease").isNotEqualTo(aToken);
      // the merge follows the send's answer within the round: the inbox is empty
      RedisTestSupport.await(
          Duration.ofSeconds(5), "b merged the inbox", () -> admin.sync().hlen(keys.inbox(g)) == 0);
      WindowSnapshot s = b.snapshot("k");
      assertThat(s.count()).isEqualTo(151);
      assertThat(s.sum()).isEqualTo(1 + 100 * 10 + 50 * 20);
      assertThat(b.stats().failedCalls()).isZero();
    } finally {
      aScheduler.shutdownNow();
      bScheduler.shutdownNow();
    }
  }

  /**
   * A reader that read the fleet before reads it again after the next merges in one {@code MGET}:
   * the heads and, for each key it holds, the buckets from two before the live one at its last read
   * on, at one instant. A key new to it, or an older bucket changed since, costs one more. Every
   * read counts what was published.
   */
  @Test
  void aSteadyRead_isOneMget_ofTheHeadsAndTheBucketsMergedSinceTheLastRead() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("steady");
    RedisKeyedHistogramWindows publisher = quiet(backend, name, time);
    RedisKeyedHistogramWindows reader = quiet(backend(TIMEOUT), name, time);
    long count = 0;
    for (int second = 0; second < 5; second++) {
      for (String route : ROUTES) {
        publisher.record(route, 1_000 + second);
        count++;
      }
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(publisher.flush(Duration.ofSeconds(2))).isTrue();
    assertThat(mgets(() -> reader.snapshots()))
        .as("a first read: heads, then buckets")
        .isEqualTo(2);
    for (int round = 0; round < 3; round++) {
      for (String route : ROUTES) {
        publisher.record(route, 2_000 + round);
        count++;
      }
      time.advance(Duration.ofSeconds(1));
      assertThat(publisher.flush(Duration.ofSeconds(2))).isTrue();
      AtomicReference<Map<String, WindowSnapshot>> read = new AtomicReference<>();
      assertThat(mgets(() -> read.set(reader.snapshots()))).as("a steady read").isEqualTo(1);
      assertThat(read.get().values().stream().mapToLong(WindowSnapshot::count).sum())
          .isEqualTo(count);
    }
    // a late sample into a bucket older than those, and a new key
    publisher.recordAt("GET /", 7, time.nanoTime() - Duration.ofSeconds(5).toNanos());
    publisher.record("GET /new", 9);
    assertThat(publisher.flush(Duration.ofSeconds(2))).isTrue();
    AtomicReference<Map<String, WindowSnapshot>> read = new AtomicReference<>();
    assertThat(mgets(() -> read.set(reader.snapshots()))).isEqualTo(2);
    assertThat(read.get().get("GET /").count()).isEqualTo(8 + 1);
    assertThat(read.get().get("GET /new").count()).isEqualTo(1);
  }

  /** How many {@code MGET}s the server ran while {@code read} ran. */
  private long mgets(Runnable read) {
    admin.sync().configResetstat();
    read.run();
    return calls(admin.sync().info("commandstats"), "mget");
  }

  /**
   * A ticker's round sent a batch into a group another process merges, and that merger's tick has
   * not come yet: a flush that then finds nothing left to send still merges that group, so a read
   * after the flush counts the batch.
   */
  @Test
  void flushAfterATickSentToAGroupOthersMerge_mergesWhatTheTickSent() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("tick-then-flush");
    List<Runnable> aTicks = new ArrayList<>();
    List<Runnable> bTicks = new ArrayList<>();
    ScheduledThreadPoolExecutor aScheduler = handTicked(aTicks);
    ScheduledThreadPoolExecutor bScheduler = handTicked(bTicks);
    try {
      RedisKeyedHistogramWindows a = handTicked(name, time, aScheduler);
      RedisKeyedHistogramWindows b = handTicked(name, time, bScheduler);
      a.record("k", 1);
      assertThat(a.flush(Duration.ofSeconds(2))).isTrue(); // a takes the lease
      for (int i = 0; i < 100; i++) {
        b.record("k", 10);
      }
      time.advance(Duration.ofSeconds(1));
      b.tick().get(5, TimeUnit.SECONDS); // b's batch waits in the inbox for a's next tick
      assertThat(b.flush(Duration.ofSeconds(2))).isTrue();
      WindowSnapshot s = a.snapshots().get("k");
      assertThat(s.count()).isEqualTo(101);
      assertThat(s.sum()).isEqualTo(1 + 100 * 10);
    } finally {
      aScheduler.shutdownNow();
      bScheduler.shutdownNow();
    }
  }

  /**
   * Four processes flush (and so merge) at once, over and over, while recording: the merges race,
   * one wins each time, and the others' commits change nothing. Every sample counts once.
   */
  @Test
  void concurrentMerges_ofOneGroup_countEverySampleOnce() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("race");
    List<RedisKeyedHistogramWindows> processes = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      processes.add(quiet(backend(Duration.ofSeconds(2)), name, time));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Long>> done = new ArrayList<>();
      for (RedisKeyedHistogramWindows w : processes) {
        done.add(
            pool.submit(
                () -> {
                  long n = 0;
                  for (int round = 0; round < 30; round++) {
                    for (int i = 0; i < 50; i++) {
                      w.record(ROUTES[i % ROUTES.length], 1 + i);
                      n++;
                    }
                    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
                  }
                  return n;
                }));
      }
      long recorded = 0;
      for (Future<Long> f : done) {
        recorded += f.get(60, TimeUnit.SECONDS);
      }
      for (RedisKeyedHistogramWindows w : processes) {
        w.record("last", 1); // a flush that merges every group a conflict may have left
        assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
      }
      // the races' losers left their fields for a later merge: every group is merged by now
      for (RedisKeyedHistogramWindows w : processes) {
        for (String route : ROUTES) {
          w.record(route, 1);
        }
        assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
        recorded += ROUTES.length;
      }
      long counted = processes.get(3).snapshot("last").count();
      for (String route : ROUTES) {
        counted += processes.get(3).snapshot(route).count();
      }
      assertThat(counted).isEqualTo(recorded + processes.size());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The ticker's task, run by hand: halfway between two ticks it drains every key into memory and
   * sends nothing. So a bucket is drained before the next rotation even when a tick comes late.
   */
  @Test
  void halfwayBetweenTicks_theRecordersAreDrainedIntoMemory() throws Exception {
    List<Runnable> tasks = new ArrayList<>();
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public ScheduledFuture<?> scheduleAtFixedRate(
              Runnable task, long delay, long period, TimeUnit unit) {
            tasks.add(task);
            return super.schedule(() -> {}, 1, TimeUnit.DAYS);
          }
        };
    try {
      RedisKeyedHistogramWindows w =
          backend
              .keyedHistogramWindows(RedisTestSupport.uniqueName("midpoint"))
              .publishInterval(Duration.ofMillis(500))
              .scheduler(scheduler)
              .build();
      assertThat(tasks).hasSize(1);
      for (int i = 0; i < 300; i++) {
        w.record(ROUTES[i % ROUTES.length], i);
      }
      assertThat(w.stats().pendingSamples()).as("not drained yet").isZero();
      tasks.get(0).run(); // halfway
      assertThat(w.stats().pendingSamples()).isEqualTo(300);
      assertThat(w.lastRound()).isDone();
      assertThat(w.stats().publishCalls()).isZero();
      assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
      assertThat(w.stats().published()).isEqualTo(300);
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void record_neverStartsAPublicationRound() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w = quiet(backend, RedisTestSupport.uniqueName("quiet"), time);
    CompletableFuture<Void> before = w.lastRound();
    for (int i = 0; i < 10_000; i++) {
      w.record(ROUTES[i % ROUTES.length], i);
      if (i % 100 == 0) {
        time.advance(Duration.ofSeconds(5));
      }
    }
    assertThat(w.lastRound()).as("no round started by a record").isSameAs(before);
    assertThat(w.stats().publishCalls()).isZero();
    assertThat(w.stats().pendingSamples()).as("nothing drained").isZero();
  }

  @Test
  void ticker_publishesWithoutAnyCallOfTheUser() {
    RedisKeyedHistogramWindows w =
        backend
            .keyedHistogramWindows(RedisTestSupport.uniqueName("ticker"))
            .publishInterval(Duration.ofMillis(50))
            .build();
    for (int i = 0; i < 1_000; i++) {
      w.record(ROUTES[i % ROUTES.length], i);
    }
    RedisTestSupport.await(
        Duration.ofSeconds(20),
        "the ticker published every sample",
        () -> w.stats().published() == 1_000,
        () -> w.stats().toString());
    w.close();
  }

  @Test
  void ticker_sendsEachClosedBucketOnce_holdingTheLiveOneBack() {
    String name = RedisTestSupport.uniqueName("aligned");
    RedisKeyedHistogramWindows w = backend.keyedHistogramWindows(name).build();
    long firstBucket = Math.floorDiv(w.timeSource().nanoTime(), Duration.ofSeconds(1).toNanos());
    for (int i = 0; i < 100; i++) {
      w.record("GET /", i);
    }
    long lastBucket = Math.floorDiv(w.timeSource().nanoTime(), Duration.ofSeconds(1).toNanos());
    RedisTestSupport.await(
        Duration.ofSeconds(20),
        "the ticker published every sample once their bucket closed",
        () -> w.stats().published() == 100,
        () -> w.stats().toString());
    // one batch per closed bucket: the live bucket waits until it closes
    assertThat(w.stats().publishCalls()).isBetween(1L, lastBucket - firstBucket + 2);
    assertThat(w.stats().retriedDuplicates()).isZero();
    w.close();
  }

  @Test
  void aNewReadersFirstSnapshot_readsTheHeadsAndTheMergedBuckets_neverTheInbox() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("cold");
    List<RedisKeyedHistogramWindows> writers = new ArrayList<>();
    for (int p = 0; p < 5; p++) {
      writers.add(quiet(backend(TIMEOUT), name, time));
    }
    for (int second = 0; second < 60; second++) {
      for (RedisKeyedHistogramWindows w : writers) {
        w.record("k", 1 + second);
      }
      time.advance(Duration.ofSeconds(1));
    }
    for (RedisKeyedHistogramWindows w : writers) {
      w.record("k", 100);
      assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    }
    RedisKeyedHistogramWindows reader = quiet(backend(TIMEOUT), name, time);
    admin.sync().configResetstat();
    WindowSnapshot s = reader.snapshot("k");
    String stats = admin.sync().info("commandstats");
    assertThat(s.count()).isEqualTo(5 * 60); // the oldest of the 61 seconds left the window
    // one MGET of the heads, one of the key's 60 merged buckets: whatever the number of writers
    assertThat(calls(stats, "mget")).isEqualTo(2);
    assertThat(calls(stats, "hgetall")).isZero();
    assertThat(stats).doesNotContain("cmdstat_evalsha");
    admin.sync().configResetstat();
    assertThat(reader.snapshot("k").count()).isEqualTo(5 * 60);
    assertThat(calls(admin.sync().info("commandstats"), "mget"))
        .as("read again: the heads only, nothing changed")
        .isEqualTo(1);
  }

  @Test
  void bucketsAlreadyRead_areReadAgain_whenALateDeltaLands() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("late");
    RedisKeyedHistogramWindows late = quiet(backend(TIMEOUT), name, time);
    RedisKeyedHistogramWindows observer = quiet(backend, name, time);
    for (int second = 0; second < 10; second++) {
      observer.record("k", 1);
      late.record("k", 2);
      if (second < 5) {
        assertThat(late.flush(Duration.ofSeconds(2))).isTrue();
      }
      time.advance(Duration.ofSeconds(1));
    }
    // the observer keeps merged buckets that lack the late process's last five deltas
    assertThat(observer.flush(Duration.ofSeconds(2))).isTrue();
    assertThat(observer.snapshot("k").count()).isEqualTo(15);
    assertThat(observer.snapshot("k").count()).isEqualTo(15);
    assertThat(late.flush(Duration.ofSeconds(2))).isTrue();
    WindowSnapshot s = observer.snapshot("k");
    assertThat(s.count()).isEqualTo(20);
    assertThat(s.sum()).isEqualTo(30);
  }

  @Test
  void oneRound_sendsOneBatchPerGroup_andOneMergePerGroup() {
    ManualTimeSource time = new ManualTimeSource(T0);
    // a timeout long enough that no call is retried on a loaded machine: each batch sent once
    RedisKeyedHistogramWindows w =
        quiet(backend(Duration.ofSeconds(5)), RedisTestSupport.uniqueName("round"), time);
    w.record("warm", 1);
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    Set<Integer> groups = new HashSet<>();
    for (int k = 0; k < 50; k++) {
      groups.add(FleetKeys.group("route-" + k));
      for (int i = 0; i < 100; i++) {
        w.record("route-" + k, 1_000L * i + k);
      }
    }
    admin.sync().configResetstat();
    CompletableFuture<Void> before = w.lastRound();
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    assertThat(w.lastRound()).isNotSameAs(before);
    String stats = admin.sync().info("commandstats");
    assertThat(calls(stats, "hset")).as("one batch per group of keys").isEqualTo(groups.size());
    // each inbox's TTL when first sent to (warm's was set before), and the lease's renewal
    // inside each commit
    long warmed = groups.contains(FleetKeys.group("warm")) ? 1 : 0;
    assertThat(calls(stats, "pexpire")).isEqualTo(2L * groups.size() - warmed);
    assertThat(calls(stats, "hgetall")).as("each inbox read once").isEqualTo(groups.size());
    assertThat(calls(stats, "evalsha")).as("one commit per group").isEqualTo(groups.size());
    assertThat(w.stats().publishCalls()).isEqualTo(1 + groups.size());
    for (int k = 0; k < 50; k++) {
      assertThat(w.snapshot("route-" + k).count()).isEqualTo(100);
    }
  }

  private static long stat(String info, String name) {
    Matcher m = Pattern.compile(name + ":(\\d+)").matcher(info);
    assertThat(m.find()).as("%s in INFO", name).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static long calls(String commandstats, String command) {
    Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+),").matcher(commandstats);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  @Test
  void aKeyIdleForAWindow_isDroppedByTheRounds_afterItsSamplesArePublished() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w = quiet(backend, RedisTestSupport.uniqueName("idle"), time);
    w.record("idle", 5);
    w.record("busy", 5);
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    for (int second = 0; second < 59; second++) {
      time.advance(Duration.ofSeconds(1));
      w.record("busy", 6);
      assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    }
    assertThat(w.estimatedKeys()).as("idle for 59 of 60 buckets: still held").isEqualTo(2);
    time.advance(Duration.ofSeconds(1));
    w.record("busy", 6);
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    assertThat(w.estimatedKeys()).as("idle for a window: dropped by the round").isEqualTo(1);
    assertThat(w.stats().published()).isEqualTo(62);
    w.record("idle", 7); // a dropped key comes back with a recorder of its own
    WindowSnapshot idle = w.snapshot("idle");
    assertThat(idle.count()).isEqualTo(1);
    assertThat(idle.max()).isEqualTo(7);
    assertThat(w.estimatedKeys()).isEqualTo(2);
  }

  @Test
  void keysDroppedFromThisProcess_arePublishedFirst() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w =
        backend
            .keyedHistogramWindows(RedisTestSupport.uniqueName("evicted"))
            .timeSource(time)
            .maximumKeys(2)
            .build();
    for (int k = 0; k < 40; k++) {
      for (int i = 0; i < 10; i++) {
        w.record("k" + k, i);
      }
    }
    assertThat(w.estimatedKeys()).isLessThanOrEqualTo(2);
    awaitFlushed(w);
    assertThat(w.stats().published()).isEqualTo(400);
    for (int k = 0; k < 40; k++) {
      assertThat(w.snapshot("k" + k).count()).as("key k%d", k).isEqualTo(10);
    }
  }

  @Test
  void bucketsOlderThanTheWindow_areExpired_notSent() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w =
        backend
            .keyedHistogramWindows(RedisTestSupport.uniqueName("expired"))
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    server.pause();
    try {
      for (int i = 0; i < 25; i++) {
        w.record("k", 7);
      }
      assertThat(w.flush(Duration.ofMillis(300))).isFalse();
      // no call of this process is waiting when the server resumes: only the next round decides
      RedisTestSupport.await(Duration.ofSeconds(10), "the round failed", w.lastRound()::isDone);
      time.advance(Duration.ofSeconds(61));
    } finally {
      server.resume();
    }
    awaitFlushed(w);
    assertThat(w.stats().expired()).isEqualTo(25);
    assertThat(snapshotOnceClosed(w, "k").isEmpty()).isTrue();
  }

  @Test
  void keys_expireJustPastTheWindow_onTheServerClock() {
    String name = RedisTestSupport.uniqueName("ttl");
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();
    RedisKeyedHistogramWindows w = backend.keyedHistogramWindows(name).config(config).build();
    w.record("GET /", 5);
    assertThat(w.flush(Duration.ofSeconds(2))).isTrue();
    long bucket = Math.floorDiv(w.timeSource().nanoTime(), Duration.ofSeconds(1).toNanos());
    FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
    int g = FleetKeys.group("GET /");
    long found = 0;
    for (long b = bucket - 1; b <= bucket; b++) {
      long ttl = admin.sync().pttl(keys.bucket(g, "GET /", b));
      if (ttl > 0) {
        found++;
        // leaves the window 9 to 10 s after its bucket starts, then 1 s of grace
        assertThat(ttl).isBetween(8_000L, 11_100L);
      }
    }
    assertThat(found).isEqualTo(1);
    // the group's state: the window and 1 s of grace
    for (String state : List.of(keys.stamp(g), keys.table(g), keys.head(g))) {
      assertThat(admin.sync().pttl(state)).as(state).isBetween(10_000L, 11_100L);
    }
    w.close();
  }

  @Test
  void recordingThreads_onManyKeys_withConcurrentSnapshots_loseNothing() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisKeyedHistogramWindows w =
        backend(Duration.ofSeconds(2))
            .keyedHistogramWindows(RedisTestSupport.uniqueName("stress"))
            .timeSource(time)
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
                    w.record(ROUTES[i % ROUTES.length], value);
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
                  assertThat(w.snapshot(ROUTES[0]).count())
                      .isLessThanOrEqualTo((long) threads * perThread);
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
    assertThat(stats.published() + stats.expired()).isEqualTo((long) threads * perThread);
    assertThat(stats.retriedDuplicates()).isZero();
  }

  @Test
  void builder_andRecord_rejectBadArguments_namingThem() {
    assertThatThrownBy(() -> backend.keyedHistogramWindows(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    RedisKeyedHistogramWindows.Builder b = backend.keyedHistogramWindows("x");
    assertThatThrownBy(() -> b.publishInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("publishInterval")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> b.maximumKeys(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumKeys")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> b.maxPendingDeltas(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPendingDeltas");
    assertThatThrownBy(() -> b.scheduler(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("scheduler");
    RedisKeyedHistogramWindows w = b.timeSource(new ManualTimeSource(T0)).build();
    assertThatThrownBy(() -> w.record("", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> w.record(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> w.flush(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
    w.record("k", -5);
    assertThat(w.snapshot("k").rejected()).isEqualTo(1);
  }
}
