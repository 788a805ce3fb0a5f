package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.testkit.BackendOptions;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fleet-wide decisions in the scenarios they are built for, against a real redis-server:
 * failed-logon correlation (threshold detector over a sliding window in sorted sets), an API rate
 * limit (sliding log) and a weekly spending cap (exact decimal sums). The outage scenario runs on a
 * dedicated server that the test kills.
 */
@ExtendWith(RedisExtension.class)
@BackendOptions(outagePolicy = OutagePolicy.THROW)
class RedisDecisionScenarioTest {
  private static RedisCommands<String, String> redis;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisBackend redisBackend, RedisCommands<String, String> commands) {
    backend = redisBackend;
    redis = commands;
  }

  private static ThresholdDetector logons(ManualTimeSource time, int maxEvents) {
    return backend.thresholdDetector(
        "failed-logons",
        ThresholdConfig.builder()
            .threshold(10)
            .window(Duration.ofSeconds(60))
            .maxEventsPerKey(maxEvents)
            .timeSource(time)
            .build());
  }

  @Test
  void failedLogons_tenthEventTripsThresholdTen_ninthDoesNot() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    ThresholdDetector rule = logons(time, 10_000);
    String user = RedisTestSupport.uniqueName("user:jdoe");
    for (int i = 1; i <= 9; i++) {
      assertThat(rule.record(user, "e" + i).fired()).as("event %d", i).isFalse();
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(rule.record(user, "e10").fired()).isTrue();
  }

  @Test
  void failedLogons_eventsOlderThanTheWindowAreEvictedAndNotCounted() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    ThresholdDetector rule = logons(time, 10_000);
    String user = RedisTestSupport.uniqueName("user");
    for (int i = 0; i < 9; i++) {
      rule.record(user, "old" + i);
    }
    time.advance(Duration.ofSeconds(61));
    ThresholdDecision d = rule.record(user, "new");
    assertThat(d.count()).isEqualTo(1);
    assertThat(d.fired()).isFalse();
    String[] keys = DecisionKeys.of("ringtail", "failed-logons", user, "te");
    assertThat(redis.zcard(keys[0])).as("evicted from Redis, not just uncounted").isEqualTo(1);
  }

  @Test
  void failedLogons_twoConcurrentWorkersOnOneKey_giveExactTotal(RedisBackend otherBackend)
      throws Exception {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    {
      ThresholdConfig config =
          ThresholdConfig.builder()
              .threshold(1_000)
              .window(Duration.ofSeconds(60))
              .maxEventsPerKey(10_000)
              .timeSource(time)
              .build();
      ThresholdDetector[] workers = {
        backend.thresholdDetector("workers", config),
        otherBackend.thresholdDetector("workers", config)
      };
      String key = RedisTestSupport.uniqueName("shared");
      AtomicInteger fired = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        ThresholdDetector worker = workers[w];
        int id = w;
        threads.add(
            new Thread(
                () -> {
                  for (int i = 0; i < 1_000; i++) {
                    ThresholdDecision d = worker.record(key, "w" + id + "-" + i);
                    worker.record(key, "w" + id + "-" + i);
                    if (d.crossed()) {
                      fired.incrementAndGet();
                    }
                  }
                }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(workers[0].record(key, "final").count()).isEqualTo(2_001);
      assertThat(fired).as("the threshold is crossed exactly once").hasValue(1);
    }
  }

  @Test
  void failedLogons_idleKeyExpiresByItsTtl_withoutASweeper() {
    ThresholdDetector rule =
        backend.thresholdDetector(
            "idle", ThresholdConfig.builder().threshold(3).window(Duration.ofMillis(50)).build());
    String user = RedisTestSupport.uniqueName("idle-user");
    rule.record(user, "e1");
    String[] keys = DecisionKeys.of("ringtail", "idle", user, "te", "ti", "tm");
    assertThat(redis.exists(keys)).isEqualTo(3);
    assertThat(redis.pttl(keys[0])).isBetween(1L, 1_050L);
    RedisTestSupport.await(
        Duration.ofSeconds(5), "idle keys to expire", () -> redis.exists(keys) == 0);
  }

  @Test
  void failedLogons_perKeyFloodIsTrimmedToTheCap_andReported() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    ThresholdDetector rule = logons(time, 50);
    String host = RedisTestSupport.uniqueName("scanner");
    for (int i = 0; i < 500; i++) {
      rule.record(host, "probe" + i);
    }
    String[] keys = DecisionKeys.of("ringtail", "failed-logons", host, "te", "ti", "tm");
    assertThat(redis.zcard(keys[0])).isEqualTo(50);
    assertThat(redis.hlen(keys[1])).isEqualTo(50);
    assertThat(redis.hget(keys[2], "trimmed"))
        .as("the overflow was reported (once per key)")
        .isEqualTo("1");
    RedisRollingWindow flood =
        backend
            .window(RedisTestSupport.uniqueName("flood"))
            .maxSamples(50)
            .timeSource(time)
            .build();
    for (int i = 0; i < 500; i++) {
      flood.record(i);
    }
    assertThat(flood.snapshot().count()).isEqualTo(50);
    assertThat(flood.stats().trimmed())
        .as("counted; logged as %s", RedisRollingWindow.CARDINALITY_CAP_WARNING)
        .isEqualTo(450);
  }

  @Test
  void failedLogons_redisOutageTripsTheBreaker_notSilentLoss() {
    try (RedisProcess dedicated = RedisProcess.start()) {
      RedisClient c = RedisTestSupport.client();
      try (StatefulRedisConnection<String, String> conn = c.connect(dedicated.uri())) {
        RedisBackend b =
            RedisBackend.builder(conn)
                .commandTimeout(Duration.ofMillis(200))
                .outagePolicy(OutagePolicy.THROW)
                .build();
        ThresholdDetector rule =
            b.thresholdDetector("outage", ThresholdConfig.builder().threshold(10).build());
        rule.record("user", "e0");
        dedicated.kill();
        for (int i = 1; i <= 10; i++) {
          int n = i;
          assertThatThrownBy(() -> rule.record("user", "e" + n))
              .as("never silently dropped")
              .isInstanceOf(RedisUnavailableException.class);
        }
        assertThat(b.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.OPEN);
      } finally {
        RedisTestSupport.shutdown(c);
      }
    }
  }

  @Test
  void apiLimit_slidingLogRateLimiter_isAtomicAndReportsRemaining() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    RateLimiter limiter =
        backend.rateLimiter(
            "api",
            RateLimitConfig.builder()
                .limit(3)
                .window(Duration.ofSeconds(1))
                .timeSource(time)
                .build());
    String client = RedisTestSupport.uniqueName("client");
    assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(2);
    assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(1);
    assertThat(limiter.tryAcquire(client).remaining()).isZero();
    assertThat(limiter.tryAcquire(client).allowed()).isFalse();
    String[] keys = DecisionKeys.of("ringtail", "api", client, RedisRateLimiter.KEY_SUFFIXES);
    assertThat(redis.strlen(keys[0]))
        .as("a header and a time per admitted request, denied ones not stored")
        .isEqualTo(48 + 3 * 8);
    assertThat(redis.pttl(keys[0])).as("the key expires once idle").isBetween(1L, 2_000L);
  }

  @Test
  void weeklySpend_tenEuroPerSlidingWeek_exactSums_andSinglePurchaseAboveCap() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    SumCap cap =
        backend.sumCap(
            "purchases",
            SumCapConfig.builder()
                .cap(new BigDecimal("10.00"))
                .window(Duration.ofDays(7))
                .timeSource(time)
                .build());
    String user = RedisTestSupport.uniqueName("user@example.com");
    assertThat(cap.tryAdd(user, new BigDecimal("2.5")).allowed()).isTrue();
    assertThat(cap.tryAdd(user, new BigDecimal("7.49")).allowed()).isTrue();
    assertThat(cap.tryAdd(user, new BigDecimal("0.02")).allowed()).isFalse();
    assertThat(cap.tryAdd(user, new BigDecimal("0.01")).total()).isEqualByComparingTo("10.00");
    assertThat(
            cap.tryAdd(RedisTestSupport.uniqueName("other"), new BigDecimal("10.01")).exceedsCap())
        .as("one purchase above the cap is denied, with no retry")
        .isTrue();
    time.advance(Duration.ofDays(7));
    assertThat(cap.tryAdd(user, new BigDecimal("10.00")).allowed()).isTrue();
  }

  @Test
  void badInput_isRejectedBeforeAnythingIsSent() {
    ManualTimeSource time = new ManualTimeSource(0);
    RateLimiter limiter =
        backend.rateLimiter("bad", RateLimitConfig.builder().limit(1).timeSource(time).build());
    SumCap cap =
        backend.sumCap("bad", SumCapConfig.builder().cap(BigDecimal.TEN).timeSource(time).build());
    ThresholdDetector rule =
        backend.thresholdDetector(
            "bad", ThresholdConfig.builder().threshold(1).timeSource(time).build());
    long before = commands();
    assertThatThrownBy(() -> limiter.tryAcquire(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> cap.tryAdd("k", new BigDecimal("-1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> cap.tryAdd("k", new BigDecimal("0.001")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0.001");
    assertThatThrownBy(() -> rule.record("k", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("eventId");
    assertThatThrownBy(() -> backend.rateLimiter("", RateLimitConfig.builder().limit(1).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThat(commands()).isEqualTo(before + 1);
  }

  private static long commands() {
    return redis
        .info("stats")
        .lines()
        .filter(l -> l.startsWith("total_commands_processed:"))
        .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
        .findFirst()
        .orElseThrow();
  }
}
