package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis rate limiter, sum cap and threshold detector where their scripts have to take care:
 * time readings wrapping past {@link Long#MAX_VALUE}, a key whose offsets outgrow its base, denials
 * answered locally. Each is checked against the in-process limiter on the same requests.
 */
@ExtendWith(RedisExtension.class)
class RedisDecisionTimeTest {
  private static final Duration WINDOW = Duration.ofSeconds(60);
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisProcess redis) {
    client = RedisTestSupport.client();
    connection = RedisTestSupport.connect(client, redis);
    backend =
        RedisBackend.builder(connection)
            .commandTimeout(Duration.ofSeconds(5))
            .outagePolicy(OutagePolicy.THROW)
            .build();
  }

  @AfterAll
  static void close() {
    connection.close();
    RedisTestSupport.shutdown(client);
  }

  private static RateLimitConfig config(int limit, Duration window) {
    return RateLimitConfig.builder()
        .limit(limit)
        .window(window)
        .idleExpiry(Duration.ofDays(400))
        .timeSource(new ManualTimeSource(0))
        .build();
  }

  @Test
  void timeWrappingPastLongMax_isDecidedByDifference_likeInProcess() {
    RateLimitConfig config = config(1, Duration.ofSeconds(10));
    RateLimiter redis = backend.rateLimiter(RedisTestSupport.uniqueName("wrap"), config);
    RateLimiter local = RateLimiter.inProcess(config);
    long first = Long.MAX_VALUE - Duration.ofSeconds(5).toNanos();
    long[] times = {
      first,
      first + Duration.ofSeconds(5).toNanos(),
      first + Duration.ofSeconds(20).toNanos(),
      first + Duration.ofSeconds(21).toNanos(),
      first + Duration.ofSeconds(30).toNanos()
    };
    assertThat(times[2]).as("the third reading wrapped").isNegative();
    for (long t : times) {
      assertThat(redis.tryAcquire("k", t)).as("at %d", t).isEqualTo(local.tryAcquire("k", t));
    }
    assertThat(redis.tryAcquire("w", first).allowed()).isTrue();
    assertThat(redis.tryAcquire("w", first + Duration.ofSeconds(20).toNanos()).allowed())
        .as("20 s later, across the wrap, the 10 s window is empty again")
        .isTrue();
  }

  @Test
  void thresholdAcrossTheWrap_isDecidedByDifference_likeInProcess() {
    ThresholdConfig config =
        ThresholdConfig.builder()
            .threshold(2)
            .window(Duration.ofSeconds(10))
            .idleExpiry(Duration.ofDays(400))
            .timeSource(new ManualTimeSource(0))
            .build();
    ThresholdDetector redis =
        backend.thresholdDetector(RedisTestSupport.uniqueName("wrap-threshold"), config);
    ThresholdDetector local = ThresholdDetector.inProcess(config);
    long first = Long.MAX_VALUE - Duration.ofSeconds(5).toNanos();
    long near = Long.MIN_VALUE + Duration.ofSeconds(3).toNanos();
    long far = first + Duration.ofSeconds(20).toNanos();
    assertThat(near - first)
        .as("8 s (and 1 ns) apart across the wrap")
        .isEqualTo(Duration.ofSeconds(8).toNanos() + 1);

    assertThat(redis.record("near", "e1", first)).isEqualTo(local.record("near", "e1", first));
    ThresholdDecision crossing = redis.record("near", "e2", near);
    assertThat(crossing).isEqualTo(local.record("near", "e2", near));
    assertThat(crossing.crossed())
        .as("two events 8 s apart, across the wrap, cross a 10 s threshold")
        .isTrue();

    assertThat(redis.record("far", "e1", first)).isEqualTo(local.record("far", "e1", first));
    ThresholdDecision apart = redis.record("far", "e2", far);
    assertThat(apart).isEqualTo(local.record("far", "e2", far));
    assertThat(apart.crossed())
        .as("20 s apart, across the wrap, the first event has left")
        .isFalse();
    assertThat(apart.count()).isEqualTo(1);

    ThresholdDecision stale =
        redis.record("far", "e0", Long.MAX_VALUE - Duration.ofSeconds(30).toNanos());
    assertThat(stale)
        .isEqualTo(local.record("far", "e0", Long.MAX_VALUE - Duration.ofSeconds(30).toNanos()));
    assertThat(stale.outcome())
        .as("an event before the window, across the wrap")
        .isEqualTo(ThresholdDecision.Outcome.EXPIRED);
  }

  @Test
  void threshold_acrossTheWrapAndRebases_withTrimsDuplicatesAndLateEvents_agreesWithInProcess() {
    List<String> redisCrossings = new ArrayList<>();
    List<String> localCrossings = new ArrayList<>();
    ThresholdConfig.Builder rule =
        ThresholdConfig.builder()
            .threshold(4)
            .window(WINDOW)
            .maxEventsPerKey(6)
            .listenerCooldown(Duration.ofSeconds(90))
            .idleExpiry(Duration.ofDays(400))
            .timeSource(new ManualTimeSource(0));
    ThresholdDetector redis =
        backend.thresholdDetector(
            RedisTestSupport.uniqueName("rebase-threshold"),
            rule.listener((key, d) -> redisCrossings.add(key + " " + d)).build());
    ThresholdDetector local =
        ThresholdDetector.inProcess(
            rule.listener((key, d) -> localCrossings.add(key + " " + d)).build());
    SplittableRandom random = new SplittableRandom(17);
    long t = Long.MAX_VALUE - Duration.ofMinutes(10).toNanos();
    long[] starts = {
      t,
      t + (1L << 52) - 2 * WINDOW.toNanos(),
      t + 2 * (1L << 52) - 2 * WINDOW.toNanos(),
      t + 3 * (1L << 52) + Duration.ofDays(30).toNanos()
    };
    int id = 0;
    for (long start : starts) {
      t = start;
      for (int i = 0; i < 400; i++) {
        int step = random.nextInt(20);
        t += step == 0 ? 2 * WINDOW.toNanos() : random.nextLong(WINDOW.toNanos() / 6);
        long at = random.nextInt(5) == 0 ? t - random.nextLong(WINDOW.toNanos() * 5 / 4) : t;
        String eventId =
            random.nextInt(6) == 0 ? "e" + random.nextInt(Math.max(1, id)) : "e" + id++;
        assertThat(redis.record("k", eventId, at))
            .as("start %d step %d", start, i)
            .isEqualTo(local.record("k", eventId, at));
      }
    }
    assertThat(redisCrossings).as("listener calls").isEqualTo(localCrossings).isNotEmpty();
  }

  @Test
  void thresholdKeyWrittenInTheDecimalLayout_isClearedOnItsNextEvent() {
    String name = RedisTestSupport.uniqueName("decimal-layout");
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, "k", "te", "ti", "tm");
    String time = "09223372036854775808"; // reading 0 as the earlier layout wrote it
    connection.sync().zadd(keys[0], 0, time + ":before");
    connection.sync().hset(keys[1], "before", time);
    connection.sync().hset(keys[2], "latest", time);
    ThresholdDetector detector =
        backend.thresholdDetector(
            name,
            ThresholdConfig.builder()
                .threshold(2)
                .window(Duration.ofSeconds(10))
                .timeSource(new ManualTimeSource(0))
                .build());
    assertThat(detector.record("k", "e1", 0))
        .isEqualTo(new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, 1, 2, false));
    assertThat(detector.record("k", "before", 0).outcome())
        .isEqualTo(ThresholdDecision.Outcome.COUNTED);
    assertThat(connection.sync().zcard(keys[0])).isEqualTo(2);
  }

  @Test
  void keyActiveLongerThanItsBaseReach_rebasesAndStaysExact() {
    for (long seed : new long[] {11, 12}) {
      RateLimitConfig config = config(3, WINDOW);
      RateLimiter redis = backend.rateLimiter(RedisTestSupport.uniqueName("rebase"), config);
      RateLimiter local = RateLimiter.inProcess(config);
      SplittableRandom random = new SplittableRandom(seed);
      long t = -Duration.ofDays(3).toNanos();
      assertThat(redis.tryAcquire("k", t)).isEqualTo(local.tryAcquire("k", t));
      // offsets from the key's base pass 2^52 ns (about 52 days) three times over, with requests
      // in the window on both sides of every rebase, and one jump far past the window
      long[] reaches = {1L << 52, 2 * (1L << 52), 3 * (1L << 52) + Duration.ofDays(30).toNanos()};
      for (long reach : reaches) {
        t = -Duration.ofDays(3).toNanos() + reach - 2 * WINDOW.toNanos();
        for (int i = 0; i < 300; i++) {
          t += random.nextLong(WINDOW.toNanos() / 8);
          long at = random.nextInt(10) == 0 ? t - random.nextLong(WINDOW.toNanos()) : t;
          assertThat(redis.tryAcquire("k", at))
              .as("reach %d step %d", reach, i)
              .isEqualTo(local.tryAcquire("k", at));
        }
      }
    }
  }

  @Test
  void sumCap_acrossTheWrapAndRebases_agreesWithInProcess() {
    SumCapConfig config =
        SumCapConfig.builder()
            .cap(new BigDecimal("10.00"))
            .window(WINDOW)
            .maxEntriesPerKey(4)
            .idleExpiry(Duration.ofDays(400))
            .timeSource(new ManualTimeSource(0))
            .build();
    SumCap redis = backend.sumCap(RedisTestSupport.uniqueName("sum"), config);
    SumCap local = SumCap.inProcess(config);
    SplittableRandom random = new SplittableRandom(5);
    long t = Long.MAX_VALUE - Duration.ofMinutes(10).toNanos();
    long[] starts = {
      t, t + (1L << 52) - 2 * WINDOW.toNanos(), t + 2 * (1L << 52) - 2 * WINDOW.toNanos()
    };
    for (long start : starts) {
      t = start;
      for (int i = 0; i < 300; i++) {
        t += random.nextLong(WINDOW.toNanos() / 8);
        long at = random.nextInt(10) == 0 ? t - random.nextLong(WINDOW.toNanos()) : t;
        BigDecimal amount = BigDecimal.valueOf(random.nextInt(500), 2);
        assertThat(redis.tryAdd("k", amount, at))
            .as("start %d step %d", start, i)
            .isEqualTo(local.tryAdd("k", amount, at));
      }
    }
  }

  @Test
  void bucketed_acrossTheWrap_agreesWithInProcess() {
    RateLimitConfig config = config(5, WINDOW);
    RateLimiter redis =
        backend.bucketedRateLimiter(RedisTestSupport.uniqueName("bucketed"), config);
    RateLimiter local = RateLimiter.inProcessBucketed(config);
    SplittableRandom random = new SplittableRandom(9);
    long t = Long.MAX_VALUE - Duration.ofMinutes(10).toNanos();
    for (int i = 0; i < 2_000; i++) {
      int step = random.nextInt(10);
      t +=
          step < 7
              ? random.nextLong(WINDOW.toNanos() / 20)
              : step < 9 ? WINDOW.toNanos() : 40 * WINDOW.toNanos();
      long at = random.nextInt(10) == 0 ? t - random.nextLong(WINDOW.toNanos()) : t;
      assertThat(redis.tryAcquire("k", at)).as("step %d", i).isEqualTo(local.tryAcquire("k", at));
    }
  }

  @Test
  void repeatedDenials_areAnsweredLocally_exactly_untilTheyCouldSucceed() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    RateLimitConfig config =
        RateLimitConfig.builder().limit(2).window(WINDOW).timeSource(time).build();
    RateLimiter redis = backend.rateLimiter(RedisTestSupport.uniqueName("local"), config);
    RateLimiter local = RateLimiter.inProcess(config);
    SplittableRandom random = new SplittableRandom(3);
    long before = backend.localDenials();
    int denials = 0;
    for (int i = 0; i < 2_000; i++) {
      time.advanceNanos(random.nextLong(WINDOW.toNanos() / 50));
      long t =
          random.nextInt(10) == 0
              ? time.nanoTime() - random.nextLong(WINDOW.toNanos())
              : time.nanoTime();
      RateDecision expected = local.tryAcquire("k", t);
      assertThat(redis.tryAcquire("k", t)).as("step %d", i).isEqualTo(expected);
      denials += expected.allowed() ? 0 : 1;
    }
    long localDenials = backend.localDenials() - before;
    assertThat(localDenials)
        .as("all but about one denial per window went without a Redis call")
        .isGreaterThan(denials * 9L / 10)
        .isLessThanOrEqualTo(denials);
  }

  /** Idle gaps of every size, up to past 2^51 ns where both lay the grid again. */
  @Test
  void bucketed_afterIdleGapsOfEverySize_agreesWithInProcess() {
    RateLimitConfig config = config(3, WINDOW);
    RateLimiter redis =
        backend.bucketedRateLimiter(RedisTestSupport.uniqueName("bucketed-gaps"), config);
    RateLimiter local = RateLimiter.inProcessBucketed(config);
    SplittableRandom random = new SplittableRandom(17);
    long[] gaps = {
      0, WINDOW.toNanos() / 7, 20 * WINDOW.toNanos(), (1L << 51) - 1, 1L << 51, (1L << 51) + 12_345
    };
    long t = 1_000_000_000_000L;
    for (int i = 0; i < 600; i++) {
      t += i % 20 == 0 ? gaps[random.nextInt(gaps.length)] : random.nextLong(WINDOW.toNanos() / 8);
      assertThat(redis.tryAcquire("k", t)).as("step %d", i).isEqualTo(local.tryAcquire("k", t));
    }
  }

  @Test
  void bucketedRepeatedDenials_areAnsweredLocally_exactly_untilTheyCouldSucceed() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    RateLimitConfig config =
        RateLimitConfig.builder().limit(3).window(WINDOW).timeSource(time).build();
    RateLimiter redis =
        backend.bucketedRateLimiter(RedisTestSupport.uniqueName("bucketed-local"), config);
    RateLimiter local = RateLimiter.inProcessBucketed(config);
    SplittableRandom random = new SplittableRandom(5);
    long before = backend.localDenials();
    int denials = 0;
    for (int i = 0; i < 3_000; i++) {
      time.advanceNanos(random.nextLong(WINDOW.toNanos() / 40));
      long t =
          random.nextInt(10) == 0
              ? time.nanoTime() - random.nextLong(WINDOW.toNanos())
              : time.nanoTime();
      RateDecision expected = local.tryAcquire("k", t);
      assertThat(redis.tryAcquire("k", t)).as("step %d", i).isEqualTo(expected);
      denials += expected.allowed() ? 0 : 1;
    }
    long localDenials = backend.localDenials() - before;
    assertThat(localDenials)
        .as("most denials went without a Redis call")
        .isGreaterThan(denials * 8L / 10)
        .isLessThanOrEqualTo(denials);
  }

  @Test
  void localDenial_isOneRedisGives_whileAnotherInstanceAdmitsOnTheKey() {
    for (boolean bucketed : new boolean[] {false, true}) {
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
      RateLimitConfig config =
          RateLimitConfig.builder().limit(4).window(WINDOW).timeSource(time).build();
      String name = RedisTestSupport.uniqueName(bucketed ? "shared-bucketed" : "shared-log");
      RateLimiter asked = limiter(name, config, bucketed);
      RateLimiter other = limiter(name, config, bucketed);
      SplittableRandom random = new SplittableRandom(bucketed ? 13 : 11);
      int checked = 0;
      for (int i = 0; i < 1_500; i++) {
        time.advanceNanos(random.nextLong(WINDOW.toNanos() / 30));
        long t = time.nanoTime();
        if (random.nextInt(3) == 0) {
          other.tryAcquire("k", t);
        }
        long before = backend.localDenials();
        RateDecision answer = asked.tryAcquire("k", t);
        if (backend.localDenials() > before) {
          // what Redis answers at the same time: a limiter instance that never saw the key denied
          RateDecision fromRedis = limiter(name, config, bucketed).tryAcquire("k", t);
          assertThat(fromRedis.allowed()).as("%s step %d", name, i).isFalse();
          assertThat(fromRedis.retryAfter())
              .as("%s step %d: others' admissions only push the retry-after later", name, i)
              .isGreaterThanOrEqualTo(answer.retryAfter());
          checked++;
        }
      }
      assertThat(checked).as(name).isGreaterThan(100);
    }
  }

  private static RateLimiter limiter(String name, RateLimitConfig config, boolean bucketed) {
    return bucketed ? backend.bucketedRateLimiter(name, config) : backend.rateLimiter(name, config);
  }

  @Test
  void windowBeyondTheBaseReach_isRefusedAtConstruction() {
    assertThatThrownBy(
            () ->
                backend.rateLimiter(
                    "long", RateLimitConfig.builder().limit(1).window(Duration.ofDays(27)).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must be at most");
  }
}
