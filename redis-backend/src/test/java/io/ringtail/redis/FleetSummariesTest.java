package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fleet's summaries on a dedicated real redis-server: written by each group's merger every
 * round, read in one command of a few bytes per key whatever the number of processes, equal to the
 * merged distributions and to exact models on a random stream, moving with the window while nothing
 * is merged, owned by one process per group and handed over when it goes.
 */
class FleetSummariesTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final long T0 = 1_000_000_000_000_000L;

  /** An interval no ticker reaches while a test runs: the test's own calls publish and merge. */
  private static final Duration QUIET = Duration.ofMinutes(1);

  private static final String[] ROUTES = {"GET /", "GET /cart", "POST /checkout", "GET /search"};
  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();
  private StatefulRedisConnection<String, String> admin;

  @BeforeEach
  void start() {
    server = RedisProcess.start();
    RedisClient client = RedisClient.create();
    clients.add(client);
    admin = client.connect(server.uri());
  }

  @AfterEach
  void stop() {
    for (RedisClient c : clients) {
      RedisTestSupport.shutdown(c);
    }
    server.close();
  }

  /** A backend over a connection of its own: one process of the fleet. */
  private RedisBackend backend() {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    return RedisBackend.builder(client.connect(server.uri())).commandTimeout(TIMEOUT).build();
  }

  private RedisKeyedHistogramWindows.Builder quiet(String name, ManualTimeSource time) {
    return backend().keyedHistogramWindows(name).timeSource(time).publishInterval(QUIET);
  }

  /** Every process flushes, then ticks: each group's merger writes its summary as of now. */
  private static void settle(List<RedisKeyedHistogramWindows> processes) throws Exception {
    for (RedisKeyedHistogramWindows p : processes) {
      assertThat(p.flush(TIMEOUT)).as("flushed").isTrue();
    }
    for (RedisKeyedHistogramWindows p : processes) {
      p.tick().get(5, TimeUnit.SECONDS);
    }
  }

  private static void assertMatches(WindowSnapshot s, ExactWindowModel model) {
    ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
    assertThat(s.count()).as("count").isEqualTo(exact.count());
    assertThat(s.sum()).as("sum").isEqualTo(exact.sum());
    if (exact.count() > 0) {
      assertThat(s.min()).isEqualTo(exact.min());
      assertThat(s.max()).isEqualTo(exact.max());
      for (double p : new double[] {50, 90, 95, 99, 99.9}) {
        long expected = exact.valueAtPercentile(p);
        assertThat(s.valueAtPercentile(p)).as("p" + p).isCloseTo(expected, within(expected * 0.01));
      }
    } else {
      assertThat(s.isEmpty()).isTrue();
    }
  }

  /**
   * Three processes record a random stream over random time (gaps longer than the window included);
   * whenever they settle, every key's summary equals the merged distribution a snapshot reads and
   * the exact model over the summarised window, and each span's totals equal the model's over the
   * span.
   */
  @Test
  void summaries_equalTheSnapshotsAndExactModels_onARandomStream() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("summaries");
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(60).build();
    List<RedisKeyedHistogramWindows> processes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      processes.add(
          quiet(name, time)
              .config(config)
              .summarySpans(Duration.ofSeconds(5), Duration.ofSeconds(30))
              .build());
    }
    RedisKeyedHistogramWindows reader = quiet(name, time).config(config).build();
    Map<String, ExactWindowModel> models = new HashMap<>();
    SplittableRandom random = new SplittableRandom(48);
    int checks = 0;
    for (int op = 0; op < 6_000; op++) {
      int dice = random.nextInt(100);
      if (dice < 8) {
        time.advance(Duration.ofMillis(random.nextInt(0, 3_000)));
      } else if (dice < 9) {
        time.advance(Duration.ofMillis(random.nextInt(0, 80_000)));
      } else if (dice < 98) {
        String key = ROUTES[random.nextInt(ROUTES.length)];
        long value = (long) Math.exp(10 + 3 * random.nextDouble());
        processes.get(random.nextInt(processes.size())).record(key, value);
        models.computeIfAbsent(key, k -> new ExactWindowModel()).record(value, time.nanoTime());
      } else {
        settle(processes);
        Map<String, FleetSummary> summaries = reader.summaries();
        for (String key : ROUTES) {
          ExactWindowModel model = models.computeIfAbsent(key, k -> new ExactWindowModel());
          FleetSummary s = reader.summary(key);
          assertThat(s.endNanos()).as("summarised now").isEqualTo(time.nanoTime());
          assertMatches(s, model);
          WindowSnapshot merged = reader.snapshot(key);
          assertThat(s.count()).isEqualTo(merged.count());
          for (double p : s.percentiles()) {
            if (s.count() > 0) {
              assertThat(s.valueAtPercentile(p)).isEqualTo(merged.valueAtPercentile(p));
            }
          }
          for (FleetSummary.Span span : s.spans()) {
            ExactWindowModel.Stats exact =
                model.between(
                    (Math.floorDiv(time.nanoTime(), 1_000_000_000L) + 1) * 1_000_000_000L
                        - span.length().toNanos(),
                    time.nanoTime());
            assertThat(span.count()).as("span " + span.length()).isEqualTo(exact.count());
            assertThat(span.sum()).isEqualTo(exact.sum());
          }
          if (s.count() > 0) {
            assertThat(summaries).containsKey(key);
            assertThat(summaries.get(key).count()).isEqualTo(s.count());
          } else {
            assertThat(summaries).doesNotContainKey(key);
          }
        }
        checks++;
      }
    }
    assertThat(checks).isGreaterThan(50);
  }

  /**
   * A read of the summaries is one {@code MGET} whatever the number of processes, and what it reads
   * is a few dozen bytes per key: ten processes' summary is no larger than two processes'.
   */
  @Test
  void aReadOfSummaries_isOneMget_ofAFewDozenBytesPerKey_whateverTheProcesses() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    long[] bytes = new long[2];
    int[] fleets = {2, 10};
    for (int f = 0; f < fleets.length; f++) {
      String name = RedisTestSupport.uniqueName("bytes");
      List<RedisKeyedHistogramWindows> processes = new ArrayList<>();
      for (int i = 0; i < fleets[f]; i++) {
        processes.add(quiet(name, time).build());
      }
      SplittableRandom random = new SplittableRandom(7);
      for (int second = 0; second < 30; second++) {
        for (int i = 0; i < 400; i++) {
          processes
              .get(random.nextInt(processes.size()))
              .record("GET /route/" + random.nextInt(20), 1_000 + random.nextInt(5_000_000));
        }
        time.advance(Duration.ofSeconds(1));
      }
      settle(processes);
      RedisKeyedHistogramWindows reader = quiet(name, time).build();
      admin.sync().configResetstat();
      Map<String, FleetSummary> read = reader.summaries();
      assertThat(read).hasSize(20);
      assertThat(calls(admin.sync().info("commandstats"), "mget")).isEqualTo(1);
      assertThat(calls(admin.sync().info("commandstats"), "hgetall")).isZero();
      FleetKeys keys = new FleetKeys("ringtail", name, 1_000_000_000L, 2, 1);
      for (int g = 0; g < FleetKeys.GROUPS; g++) {
        bytes[f] += admin.sync().strlen(keys.summary(g));
      }
      assertThat(read.values().stream().mapToLong(FleetSummary::count).sum()).isEqualTo(12_000);
    }
    // a 12-byte key, its count, sum, min, max, rejected, newest bucket and five percentiles
    assertThat(bytes[1] / 20).as("bytes per key, 10 processes").isLessThan(72);
    assertThat(bytes[1]).as("10 processes against 2").isLessThan(bytes[0] + 16 * 8);
  }

  private static long calls(String commandstats, String command) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("cmdstat_" + command + ":calls=(\\d+),")
            .matcher(commandstats);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  /**
   * Nothing published, the holder's ticks still move the summary with the window: a bucket leaving
   * it leaves the summary, and a key with nothing left in the window leaves the summaries.
   */
  @Test
  void whileNothingIsMerged_theMergersTicksMoveTheSummaryWithTheWindow() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("sliding");
    RedisKeyedHistogramWindows p = quiet(name, time).summarySpans(Duration.ofSeconds(10)).build();
    RedisKeyedHistogramWindows reader = quiet(name, time).build();
    for (int second = 0; second < 10; second++) {
      for (int i = 0; i <= second; i++) {
        p.record("k", 1_000 * (second + 1));
      }
      time.advance(Duration.ofSeconds(1));
    }
    settle(List.of(p));
    assertThat(reader.summary("k").count()).isEqualTo(55);
    // the last 10 s are the live bucket (second 10, empty) and the nine before it
    assertThat(reader.summary("k").span(Duration.ofSeconds(10)).count()).isEqualTo(55 - 1);
    // 54 s later the first five seconds (1 + 2 + 3 + 4 + 5 samples) have left the window
    time.advance(Duration.ofSeconds(54));
    p.tick().get(5, TimeUnit.SECONDS);
    FleetSummary s = reader.summary("k");
    assertThat(s.count()).isEqualTo(55 - 15);
    assertThat(s.min()).isEqualTo(6_000);
    assertThat(s.endNanos()).isEqualTo(time.nanoTime());
    assertThat(s.span(Duration.ofSeconds(10)).count()).isZero();
    time.advance(Duration.ofSeconds(10));
    p.tick().get(5, TimeUnit.SECONDS);
    assertThat(reader.summaries()).doesNotContainKey("k");
    assertThat(reader.summary("k").isEmpty()).isTrue();
    assertThat(reader.summary("k").valueAtPercentile(95)).isNaN();
  }

  /**
   * One process owns each group (the merger lease); its owned summaries are what the fleet reads,
   * without a read. When it closes, another process's next tick takes the lease over and owns the
   * key, with the same numbers.
   */
  /**
   * What another process merged by its flush is in the summary once the holder flushes, as after
   * its tick: with time standing still, no bucket closes to make the summary due otherwise.
   */
  @Test
  void aNonHoldersFlush_isInTheSummaryAfterTheHoldersFlush() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("flushes");
    RedisKeyedHistogramWindows a = quiet(name, time).build();
    RedisKeyedHistogramWindows b = quiet(name, time).build();
    a.record("k", 5);
    assertThat(a.flush(TIMEOUT)).isTrue(); // a sends first: a takes the lease, summarises
    assertThat(a.owns("k")).isTrue();
    assertThat(b.summary("k").count()).isEqualTo(1);
    for (int round = 1; round <= 3; round++) {
      b.record("k", 7);
      assertThat(b.flush(TIMEOUT)).isTrue(); // b merges its batch; the summary is a's to write
      assertThat(b.owns("k")).isFalse();
      assertThat(a.flush(TIMEOUT)).isTrue();
      assertThat(b.summary("k").count()).as("after round %d", round).isEqualTo(1 + round);
      assertThat(a.ownedSummaries().get("k").count()).isEqualTo(1 + round);
    }
  }

  @Test
  void oneProcessOwnsEachKey_andTheOwnershipMovesWhenItCloses() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("owners");
    RedisKeyedHistogramWindows a = quiet(name, time).build();
    RedisKeyedHistogramWindows b = quiet(name, time).build();
    RedisKeyedHistogramWindows c = quiet(name, time).build();
    List<RedisKeyedHistogramWindows> all = List.of(a, b, c);
    a.record("k", 5);
    assertThat(a.flush(TIMEOUT)).isTrue(); // a sends first: a takes the lease
    for (RedisKeyedHistogramWindows p : all) {
      for (int i = 0; i < 10; i++) {
        p.record("k", 7);
      }
    }
    time.advance(Duration.ofSeconds(1));
    settle(all);
    assertThat(all.stream().filter(p -> p.owns("k")).count()).as("owners").isEqualTo(1);
    assertThat(a.owns("k")).isTrue();
    assertThat(a.ownedSummaries()).containsOnlyKeys("k");
    assertThat(a.ownedSummaries().get("k").count()).isEqualTo(31);
    assertThat(b.ownedSummaries()).isEmpty();
    assertThat(b.summary("k").count()).isEqualTo(31);
    assertThat(b.summary("k").totals().orElseThrow().count()).as("b's own").isEqualTo(10);
    assertThat(b.totals().get("k").count()).as("b's own, without a read").isEqualTo(10);
    assertThat(b.totals().get("k").sum()).isEqualTo(70);

    assertThat(a.close()).isTrue(); // gives its lease up
    b.record("k", 9);
    time.advance(Duration.ofSeconds(1));
    b.tick().get(5, TimeUnit.SECONDS); // b sends; its marker had gone: a merger ran since
    assertThat(b.owns("k")).isFalse();
    // b's marker is still there: no merge ran since its batch, so b takes the free lease, merges
    b.tick().get(5, TimeUnit.SECONDS);
    c.tick().get(5, TimeUnit.SECONDS);
    assertThat(b.owns("k")).isTrue();
    assertThat(c.owns("k")).isFalse();
    assertThat(b.ownedSummaries().get("k").count()).isEqualTo(32);
    assertThat(c.summary("k").count()).isEqualTo(32);
  }

  /**
   * The single window's face reads the same summary: one read, neither publishing nor merging, the
   * numbers its snapshot gives.
   */
  @Test
  void aSingleWindowsSummary_isItsSnapshotsNumbers() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("single");
    RedisHistogramWindow a =
        backend()
            .histogramWindow(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .summaryPercentiles(50, 99)
            .build();
    RedisHistogramWindow b =
        backend().histogramWindow(name).timeSource(time).publishInterval(QUIET).build();
    for (int i = 1; i <= 100; i++) {
      a.record(i * 1_000L);
      b.record(i * 2_000L);
    }
    time.advance(Duration.ofSeconds(1));
    assertThat(a.flush(TIMEOUT)).isTrue();
    assertThat(b.flush(TIMEOUT)).isTrue();
    RedisHistogramSnapshot snapshot = b.snapshot();
    assertThat(b.summary().count()).as("a's merge, before b's flush merged").isEqualTo(100);
    a.tick().get(5, TimeUnit.SECONDS); // the holder's tick writes the summary again
    FleetSummary summary = b.summary();
    assertThat(summary.count()).isEqualTo(200).isEqualTo(snapshot.count());
    assertThat(summary.sum()).isEqualTo(snapshot.sum());
    assertThat(summary.percentiles()).containsExactly(50, 99);
    assertThat(summary.valueAtPercentile(50)).isEqualTo(snapshot.valueAtPercentile(50));
    assertThat(summary.valueAtPercentile(99)).isEqualTo(snapshot.valueAtPercentile(99));
    assertThat(summary.valueAtPercentile(95))
        .as("not carried: the next carried one, an upper bound")
        .isEqualTo(snapshot.valueAtPercentile(99))
        .isGreaterThanOrEqualTo(snapshot.valueAtPercentile(95));
    assertThat(summary.max()).isEqualTo(200_000);
    assertThat(summary.publishers()).isEqualTo(2);
  }

  /**
   * A process whose clock runs ahead sends a bucket the merger's clock has not reached, twice; the
   * merger keeps only its window's buckets in memory, and adds the second delta to what Redis holds
   * of that bucket, not to nothing. (Before, it took a bucket it did not hold for an empty one.)
   */
  @Test
  void aBucketAheadOfTheMergersClock_addsToWhatRedisHolds() throws Exception {
    ManualTimeSource mergerTime = new ManualTimeSource(T0);
    ManualTimeSource aheadTime = new ManualTimeSource(T0 + 1_500_000_000L);
    String name = RedisTestSupport.uniqueName("ahead");
    RedisKeyedHistogramWindows merger = quiet(name, mergerTime).build();
    RedisKeyedHistogramWindows ahead = quiet(name, aheadTime).build();
    merger.record("k", 1);
    assertThat(merger.flush(TIMEOUT)).isTrue(); // the merger takes the lease
    for (int i = 0; i < 10; i++) {
      ahead.record("k", 2);
    }
    assertThat(ahead.flush(TIMEOUT)).isTrue(); // merged by its own flush: bucket T0 + 1 s holds 10
    for (int i = 0; i < 5; i++) {
      ahead.record("k", 3);
    }
    aheadTime.advance(Duration.ofSeconds(1));
    ahead.tick().get(5, TimeUnit.SECONDS); // its batch waits in the inbox
    merger.tick().get(5, TimeUnit.SECONDS); // the merger adds it to bucket T0 + 1 s
    mergerTime.advance(Duration.ofSeconds(3));
    WindowSnapshot s = merger.snapshot("k");
    assertThat(s.count()).isEqualTo(1 + 10 + 5);
    assertThat(s.sum()).isEqualTo(1 + 20 + 15);
  }

  /** Summary percentiles and spans are checked when configured, naming the setting. */
  @Test
  void builder_rejectsBadSummaryPercentilesAndSpans_namingThem() {
    RedisKeyedHistogramWindows.Builder b = backend().keyedHistogramWindows("x");
    assertThatThrownBy(() -> b.summaryPercentiles(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summaryPercentiles")
        .hasMessageContaining("0.0");
    assertThatThrownBy(() -> b.summaryPercentiles(101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summaryPercentiles");
    assertThatThrownBy(() -> b.summaryPercentiles(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summaryPercentiles");
    assertThatThrownBy(() -> b.summaryPercentiles(99.12345))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4 decimals");
    assertThat(b.summaryPercentiles(50, 99.9, 99.99)).isSameAs(b);
    assertThatThrownBy(() -> b.summaryPercentiles())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summaryPercentiles");
    assertThatThrownBy(() -> b.summarySpans(Duration.ofMillis(1500)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summarySpans")
        .hasMessageContaining("PT1.5S");
    assertThatThrownBy(() -> b.summarySpans(Duration.ofMinutes(2)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summarySpans");
    assertThatThrownBy(() -> b.summarySpans(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("summarySpans");
    RedisKeyedHistogramWindows w =
        b.summarySpans(Duration.ofSeconds(10)).timeSource(new ManualTimeSource(T0)).build();
    assertThatThrownBy(() -> w.summary(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> w.owns(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> w.summary("k").span(Duration.ofSeconds(3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT10S");
  }
}
