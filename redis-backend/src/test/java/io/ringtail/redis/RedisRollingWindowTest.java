package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.WindowTotals;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis window against a real redis-server: semantics, exactness, keys, TTL, cap, scripts. */
@ExtendWith(RedisExtension.class)
class RedisRollingWindowTest {
  private static final long T0 = 1_000_000_000_000_000L;
  private static RedisCommands<String, String> redis;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisBackend redisBackend, RedisCommands<String, String> commands) {
    backend = redisBackend;
    redis = commands;
  }

  private static RedisRollingWindow.Builder window(String base) {
    return backend.window(RedisTestSupport.uniqueName(base));
  }

  @Test
  void serverTime_countsWhatEveryRecorderSent() {
    RedisRollingWindow w = window("server").length(Duration.ofMinutes(5)).build();
    for (int i = 1; i <= 10; i++) {
      w.record(i * 100);
    }
    List<String> time = redis.time();
    long serverNanos =
        (Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1))) * 1000;
    WindowSnapshot s = w.snapshot();
    assertThat(s.count()).isEqualTo(10);
    assertThat(s.sum()).isEqualTo(5500);
    assertThat(s.valueAtPercentile(95)).isEqualTo(1000);
    assertThat(s.valueAtPercentile(50)).isEqualTo(500);
    assertThat(Math.abs(s.endNanos() - serverNanos)).isLessThan(Duration.ofSeconds(5).toNanos());
    assertThat(s.endNanos() - s.startNanos()).isEqualTo(Duration.ofMinutes(5).toNanos() - 1);
  }

  @Test
  void totals_areWhatEachProcessStored_andOutliveTheWindow() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("totals");
    RedisRollingWindow a =
        backend.window(name).length(Duration.ofSeconds(10)).timeSource(time).build();
    RedisRollingWindow b =
        backend.window(name).length(Duration.ofSeconds(10)).timeSource(time).build();
    a.record("e1", 100);
    a.record("e1", 100); // duplicate: stored once
    a.record(-5);
    b.record(1 << 20);
    b.record("e1", 100); // the other process's duplicate is not b's either
    assertThat(a.snapshot().totals()).contains(new WindowTotals(1, 100, 1));
    assertThat(b.snapshot().totals()).contains(new WindowTotals(1, 1 << 20, 0));
    time.advance(Duration.ofMinutes(1));
    a.record(7);
    WindowSnapshot later = a.snapshot();
    assertThat(later.count()).isEqualTo(1);
    assertThat(later.totals()).contains(new WindowTotals(2, 107, 1));
    assertThat(b.snapshot().totals()).contains(new WindowTotals(1, 1 << 20, 0));
  }

  @Test
  void lowerBound_isExclusive() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("bound").length(Duration.ofSeconds(10)).timeSource(time).build();
    w.record(1);
    time.advanceNanos(1_000);
    w.record(2);
    time.advanceNanos(Duration.ofSeconds(10).toNanos() - 1_000);
    WindowSnapshot s = w.snapshot();
    assertThat(s.count()).as("the sample exactly one length old is out").isEqualTo(1);
    assertThat(s.min()).isEqualTo(2);
    assertThat(s.startNanos()).isEqualTo(T0 + 1_000);
    time.advanceNanos(1_000);
    assertThat(w.snapshot().isEmpty()).isTrue();
  }

  @Test
  void sameTimestamp_distinctEvents_allCounted() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("ties").timeSource(time).build();
    for (int i = 0; i < 50; i++) {
      w.record(7);
    }
    assertThat(w.snapshot().count()).isEqualTo(50);
    assertThat(w.snapshot().sum()).isEqualTo(350);
  }

  @Test
  void replayedEventId_isCountedOnce() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("replay").timeSource(time).build();
    w.record("evt-1", 5);
    w.record("evt-1", 5);
    time.advance(Duration.ofSeconds(1));
    w.record("evt-1", 5);
    w.record("evt-2", 5);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    WindowSnapshot s = w.snapshot();
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.sum()).isEqualTo(10);
    assertThat(w.stats().duplicates()).isEqualTo(2);
  }

  @Test
  void sums_areExactBeyondDoublePrecision() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("bigsum").timeSource(time).build();
    long big = (1L << 53) + 1;
    long[] values = {big, big + 2, 3, Long.MAX_VALUE / 4, 999_999_999_999_999_999L};
    long sum = 0;
    for (long v : values) {
      w.record(v);
      sum += v;
    }
    WindowSnapshot s = w.snapshot();
    assertThat(s.sum()).isEqualTo(sum);
    assertThat(s.max()).isEqualTo((double) (Long.MAX_VALUE / 4));
    assertThat(s.valueAtPercentile(40))
        .as("a double answer, as WindowSnapshot returns")
        .isEqualTo((double) big);
    time.advance(Duration.ofSeconds(61));
    w.record(1);
    assertThat(w.snapshot().sum()).as("evicting big values subtracts them exactly").isEqualTo(1);
  }

  @Test
  void sumOverflow_isRejectedVisibly() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("overflow").timeSource(time).build();
    w.record(Long.MAX_VALUE);
    w.record(1);
    WindowSnapshot s = w.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.sum()).isEqualTo(Long.MAX_VALUE);
    assertThat(s.rejected()).isEqualTo(1);
  }

  @Test
  void percentiles_matchExactModel_onLargeRandomStream() {
    ManualTimeSource time = new ManualTimeSource(T0);
    double[] ps = {0, 0.1, 1, 10, 33.3, 50, 66.6, 90, 95, 99, 99.9, 99.99, 100};
    RedisRollingWindow w = window("model").length(Duration.ofSeconds(30)).timeSource(time).build();
    ExactWindowModel model = new ExactWindowModel();
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 20_000; i++) {
      if (random.nextInt(50) == 0) {
        time.advance(Duration.ofMillis(random.nextInt(1, 2_000)));
      }
      long v =
          random.nextInt(4) == 0
              ? random.nextLong(0, 20)
              : random.nextLong(0, Long.MAX_VALUE / 100_000);
      w.record(v);
      model.record(v, time.nanoTime());
      if (i % 2_500 == 2_499) {
        WindowSnapshot s = w.snapshot(ps);
        ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
        assertThat(s.count()).isEqualTo(exact.count());
        assertThat(s.sum()).isEqualTo(exact.sum());
        for (double p : ps) {
          assertThat((long) s.valueAtPercentile(p))
              .as("p" + p)
              .isEqualTo(exact.valueAtPercentile(p));
        }
      }
    }
  }

  @Test
  void unfetchedPercentile_isNextFetchedRankAbove() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("ladder").timeSource(time).build();
    for (int i = 1; i <= 100; i++) {
      w.record(i);
    }
    WindowSnapshot s = w.snapshot(50, 90);
    assertThat(s.valueAtPercentile(90)).isEqualTo(90);
    assertThat(s.valueAtPercentile(45)).isEqualTo(90 - 40).as("next fetched rank above 45 is 50");
    assertThat(s.valueAtPercentile(95)).isEqualTo(100);
    assertThat(s.valueAtPercentile(0)).isEqualTo(1);
  }

  @Test
  void cardinalityCap_trimsOldest_countsAndWarns() {
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger(RedisRollingWindow.class.getName());
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            logged.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(handler);
    try {
      ManualTimeSource time = new ManualTimeSource(T0);
      RedisRollingWindow w = window("cap").maxSamples(100).timeSource(time).build();
      for (int i = 0; i < 150; i++) {
        w.record(i);
        time.advanceNanos(1_000);
      }
      WindowSnapshot s = w.snapshot();
      assertThat(s.count()).isEqualTo(100);
      assertThat(s.min()).as("the oldest were trimmed").isEqualTo(50);
      assertThat(s.sum()).isEqualTo((50 + 149) * 100 / 2);
      assertThat(w.stats().trimmed()).isEqualTo(50);
      assertThat(logged)
          .anySatisfy(
              r -> assertThat(r.getMessage()).contains(RedisRollingWindow.CARDINALITY_CAP_WARNING));
    } finally {
      jul.removeHandler(handler);
    }
  }

  @Test
  void everyWrite_setsTtlJustPastTheWindow_andIdleKeysExpire() {
    String name = RedisTestSupport.uniqueName("ttl");
    RedisRollingWindow w = backend.window(name).length(Duration.ofMillis(100)).build();
    w.record(5);
    w.record(-1);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    String[] keys = WindowKeys.window("ringtail", name);
    for (String key : new String[] {keys[0], keys[1], keys[2], keys[3]}) {
      assertThat(redis.pttl(key)).as(key).isBetween(1L, 1_100L);
    }
    RedisTestSupport.await(
        Duration.ofSeconds(5), "idle keys to expire", () -> redis.exists(keys) == 0);
  }

  @Test
  void scriptFlush_isRecoveredByItself() {
    ManualTimeSource time = new ManualTimeSource(T0);
    RedisRollingWindow w = window("noscript").timeSource(time).build();
    w.record(1);
    assertThat(w.snapshot().count()).isEqualTo(1);
    long reloads = w.stats().scriptReloads();
    redis.scriptFlush();
    w.record(2);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    redis.scriptFlush();
    WindowSnapshot s = w.snapshot();
    assertThat(s.count()).isEqualTo(2);
    assertThat(w.stats().scriptReloads()).isGreaterThanOrEqualTo(reloads + 2);
    assertThat(w.stats().failedCalls()).isZero();
    w.record(3);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    assertThat(redis.scriptExists(Scripts.WINDOW_RECORD.sha, Scripts.WINDOW_SNAPSHOT.sha))
        .containsExactly(true, true);
  }

  @Test
  void hugeBacklog_isEvictedInBoundedChunks() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("backlog");
    RedisRollingWindow w = backend.window(name).timeSource(time).maxSamples(1_000_000).build();
    for (int i = 0; i < 12_000; i++) {
      w.record(i);
    }
    assertThat(w.snapshot().count()).isEqualTo(12_000);
    time.advance(Duration.ofMinutes(2));
    String[] keys = WindowKeys.window("ringtail", name);
    long nowMicros = time.nanoTime() / 1000;
    List<Object> first =
        redis.evalsha(
            Scripts.WINDOW_SNAPSHOT.sha,
            ScriptOutputType.MULTI,
            keys,
            Long.toString(60_000_000),
            "500",
            "5000",
            Long.toString(nowMicros),
            "-1");
    assertThat(WindowProtocol.SnapshotReply.parse(first).backlog())
        .as("one call evicts at most its budget and says so")
        .isTrue();
    assertThat(redis.zcard(keys[0])).isEqualTo(7_000);
    WindowSnapshot s = w.snapshot();
    assertThat(s.isEmpty()).isTrue();
    assertThat(redis.exists(keys[0], keys[1], keys[2])).isZero();
  }

  @Test
  void keys_shareOneHashTag_evenWithBracesInTheName() {
    for (String name : List.of("plain", "{user}", "a}b{c", "}{", "%7B", "{", "x{y}z")) {
      String[] keys = WindowKeys.window("ringtail", name);
      int slot = SlotHash.getSlot(keys[0]);
      assertThat(Arrays.stream(keys).mapToInt(SlotHash::getSlot)).as(name).containsOnly(slot);
      String tag = keys[0].substring(keys[0].indexOf('{') + 1, keys[0].indexOf('}'));
      assertThat(tag).doesNotContain("{", "}");
    }
    assertThat(WindowKeys.tag("p", "{a}")).isNotEqualTo(WindowKeys.tag("p", "%7Ba%7D"));
    RedisRollingWindow braces = window("{user}}{").timeSource(new ManualTimeSource(T0)).build();
    braces.record(3);
    assertThat(braces.snapshot().count()).isEqualTo(1);
  }

  @Test
  void badInput_isRejectedBeforeAnythingIsSent(StatefulRedisConnection<String, String> connection) {
    long before = commandCount();
    assertThatThrownBy(() -> backend.window("").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> window("w").length(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("length")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> window("w").length(Duration.ofDays(400)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT9600H");
    assertThatThrownBy(() -> window("w").maxSamples(-5).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-5");
    assertThatThrownBy(() -> window("w").percentiles(50, Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NaN");
    assertThatThrownBy(() -> window("w").maxClockSkew(Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeSource");
    RedisRollingWindow w = window("w").build();
    assertThatThrownBy(() -> w.record("", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("eventId");
    assertThatThrownBy(() -> w.snapshot(101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("101");
    assertThatThrownBy(() -> RedisBackend.builder(connection).keyPrefix("a{b").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix");
    assertThatThrownBy(
            () -> RedisBackend.builder(connection).commandTimeout(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("commandTimeout");
    assertThat(commandCount())
        .as("nothing reached Redis (INFO itself is one command)")
        .isEqualTo(before + 1);
  }

  private static long commandCount() {
    String stats = redis.info("stats");
    return stats
        .lines()
        .filter(l -> l.startsWith("total_commands_processed:"))
        .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void twoWorkersOnOneKey_giveExactNonDoubleCountedTotal(RedisBackend b2) throws Exception {
    String name = RedisTestSupport.uniqueName("workers");
    List<Thread> workers = new ArrayList<>();
    List<RedisRollingWindow> windows = new CopyOnWriteArrayList<>();
    {
      RedisBackend[] backends = {backend, b2};
      for (int k = 0; k < 2; k++) {
        RedisRollingWindow w = backends[k].window(name).build();
        windows.add(w);
        int worker = k;
        workers.add(
            new Thread(
                () -> {
                  for (int i = 0; i < 5_000; i++) {
                    w.record("w" + worker + "-" + i, worker + 1);
                    if (i % 1000 == 0) {
                      w.record("w" + worker + "-" + i, worker + 1);
                    }
                  }
                }));
      }
      workers.forEach(Thread::start);
      for (Thread t : workers) {
        t.join();
      }
      for (RedisRollingWindow w : windows) {
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
      }
      WindowSnapshot s = windows.get(0).snapshot();
      assertThat(s.count()).isEqualTo(10_000);
      assertThat(s.sum()).isEqualTo(5_000 * 1 + 5_000 * 2);
      assertThat(windows.get(1).snapshot().count()).isEqualTo(10_000);
      assertThat(windows.get(0).stats().duplicates() + windows.get(1).stats().duplicates())
          .isEqualTo(10);
    }
  }

  @Test
  void localFallback_isOnlyBuiltWhenAsked() {
    RedisRollingWindow w =
        window("local")
            .localFallback(WindowConfig.builder().length(Duration.ofMinutes(1)).build())
            .build();
    w.record(5);
    assertThat(w.snapshot().count()).isEqualTo(1);
    assertThat(w.footprintBytes()).isGreaterThan(window("nolocal").build().footprintBytes());
  }
}
