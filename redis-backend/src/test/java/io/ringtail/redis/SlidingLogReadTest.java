package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.redis.testkit.BackendOptions;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.testkit.ExactDecisionModels;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sliding log and the sum cap read a key's header and its oldest entries, not the whole ring:
 * exact however many entries leave the window between two decisions (none, a few, more than one
 * read's worth, all), a key that fills its ring again after entries left is not rewritten again,
 * and a sum-cap denial reads one entry beyond those.
 */
@ExtendWith(RedisExtension.class)
@BackendOptions(outagePolicy = OutagePolicy.THROW)
class SlidingLogReadTest {
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static RedisBackend backend;
  private static RedisCommands<String, String> redis;

  @BeforeAll
  static void connect(RedisBackend redisBackend, RedisCommands<String, String> commands) {
    backend = redisBackend;
    redis = commands;
  }

  @ParameterizedTest(name = "the TTL due on every call: {0}")
  @ValueSource(booleans = {false, true})
  void randomStreams_withManyEntriesLeavingAtOnce_matchTheExactModel(boolean ttlDue) {
    for (int limit : new int[] {17, 50, 200}) {
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
      String name = RedisTestSupport.uniqueName("read");
      String key = RedisTestKit.rateLimiterKeys("ringtail", name, "k")[0];
      RateLimiter limiter =
          backend.rateLimiter(
              name,
              RateLimitConfig.builder()
                  .limit(limit)
                  .window(WINDOW)
                  .idleExpiry(WINDOW.multipliedBy(3))
                  .timeSource(time)
                  .build());
      ExactDecisionModels.RateLimit model = new ExactDecisionModels.RateLimit(limit, WINDOW);
      SplittableRandom random = new SplittableRandom(7 + limit);
      long w = WINDOW.toNanos();
      for (int i = 0; i < 3_000; i++) {
        long t = nextTime(random, time, w / limit);
        RateDecision expected = model.tryAcquire("k", t);
        dueTtl(ttlDue, key);
        assertThat(limiter.tryAcquire("k", t))
            .as("operation %d limit %d", i, limit)
            .isEqualTo(expected);
      }
    }
  }

  @ParameterizedTest(name = "the TTL due on every call: {0}")
  @ValueSource(booleans = {false, true})
  void sumCapRandomStreams_withManyEntriesLeavingAtOnce_matchTheExactModel(boolean ttlDue) {
    BigDecimal capValue = new BigDecimal("100.00");
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    String name = RedisTestSupport.uniqueName("read-sum");
    String key = RedisTestKit.decisionKeys("ringtail", name, "k", RedisSumCap.KEY_SUFFIXES)[0];
    SumCap cap =
        backend.sumCap(
            name,
            SumCapConfig.builder()
                .cap(capValue)
                .window(WINDOW)
                .idleExpiry(WINDOW.multipliedBy(3))
                .timeSource(time)
                .build());
    ExactDecisionModels.Sum model = new ExactDecisionModels.Sum(capValue, WINDOW, 2);
    SplittableRandom random = new SplittableRandom(11);
    long w = WINDOW.toNanos();
    for (int i = 0; i < 3_000; i++) {
      long t = nextTime(random, time, w / 200);
      // mostly cents, so that hundreds of entries are held; now and then a large amount
      BigDecimal amount =
          BigDecimal.valueOf(
              random.nextInt(10) == 0 ? random.nextInt(5_000) : random.nextInt(60), 2);
      SumDecision expected = model.tryAdd("k", amount, t);
      dueTtl(ttlDue, key);
      assertThat(cap.tryAdd("k", amount, t)).as("operation %d", i).isEqualTo(expected);
    }
  }

  @Test
  void aRingFilledAgainAfterEntriesLeft_isNotRewrittenAgain() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    int limit = 200; // a ring longer than one read: later laps never hold it whole
    String name = RedisTestSupport.uniqueName("refill");
    RateLimiter limiter =
        backend.rateLimiter(
            name, RateLimitConfig.builder().limit(limit).window(WINDOW).timeSource(time).build());
    long sets = calls(redis, "set");
    long firstSecond = serverSecond();
    for (int i = 0; i < limit; i++) {
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
      time.advanceNanos(WINDOW.toNanos() / limit);
    }
    // while the string is small, a decision that refreshes the key's TTL (once per server second)
    // writes it whole too
    assertThat(calls(redis, "set") - sets)
        .as("written whole when created and once more when the ring first filled")
        .isBetween(2L, 2L + serverSecond() - firstSecond);
    long full = calls(redis, "set");
    for (int round = 0; round < 5 * limit; round++) {
      // one entry left: the ring is full again after this admission
      assertThat(limiter.tryAcquire("k").allowed()).as("round %d", round).isTrue();
      assertThat(limiter.tryAcquire("k").allowed()).as("round %d", round).isFalse();
      time.advanceNanos(WINDOW.toNanos() / limit);
    }
    assertThat(calls(redis, "set")).as("later laps write entries in place").isEqualTo(full);
    String key = RedisTestKit.rateLimiterKeys("ringtail", name, "k")[0];
    assertThat(redis.strlen(key)).isEqualTo(48 + 8L * limit);
  }

  @Test
  void aSumCapDenialTheOldestEntryMakesRoomFor_readsNothingPastTheOldestEntries() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    SumCap cap =
        backend.sumCap(
            RedisTestSupport.uniqueName("deny-read"),
            SumCapConfig.builder()
                .cap(new BigDecimal("100"))
                .window(WINDOW)
                .timeSource(time)
                .build());
    for (int i = 0; i < 10; i++) {
      assertThat(cap.tryAdd("k", BigDecimal.TEN).allowed()).isTrue();
      time.advanceNanos(1_000_000);
    }
    long reads = calls(redis, "getrange");
    int denials = 20;
    for (int i = 0; i < denials; i++) {
      SumDecision d = cap.tryAdd("k", BigDecimal.ONE);
      assertThat(d.allowed()).isFalse();
      assertThat(d.retryAfter())
          .as("room when the oldest amount leaves")
          .contains(WINDOW.minusNanos(10_000_000L + i * 1_000L));
      time.advanceNanos(1_000);
    }
    assertThat(calls(redis, "getrange") - reads)
        .as("one read: the header, the oldest entries and the running total after the oldest")
        .isEqualTo(denials);
  }

  /**
   * Advances the clock by up to {@code smallStep} most of the time, else by a random share of the
   * window (from a few entries to most of them leave at once) or past it, and returns a request
   * time: the clock's, or now and then up to a window before it.
   */
  private static long nextTime(SplittableRandom random, ManualTimeSource time, long smallStep) {
    long w = WINDOW.toNanos();
    int step = random.nextInt(20);
    if (step < 14) {
      time.advanceNanos(random.nextLong(smallStep));
    } else if (step < 18) {
      time.advanceNanos(random.nextLong(w));
    } else if (step == 18) {
      time.advanceNanos(w + random.nextLong(w));
    }
    return random.nextInt(25) == 0 ? time.nanoTime() - random.nextLong(w) : time.nanoTime();
  }

  @Test
  void aSmallKeyWhoseTtlIsDue_isWrittenWholeWithItsTtl_inOneCall() {
    String name = RedisTestSupport.uniqueName("refresh");
    RateLimiter limiter =
        backend.rateLimiter(name, RateLimitConfig.builder().limit(100).window(WINDOW).build());
    assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    String key = RedisTestKit.rateLimiterKeys("ringtail", name, "k")[0];
    long ttl = redis.pttl(key);
    for (int round = 0; round < 5; round++) {
      // the TTL nearly run out
      dueTtl(true, key);
      redis.pexpire(key, 1_000);
      long sets = calls(redis, "set");
      long setranges = calls(redis, "setrange");
      long expires = calls(redis, "pexpire");
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
      assertThat(calls(redis, "set") - sets).as("written whole").isEqualTo(1);
      assertThat(calls(redis, "setrange") - setranges).as("no write in place").isZero();
      assertThat(calls(redis, "pexpire") - expires).as("no separate TTL").isZero();
      assertThat(redis.pttl(key)).as("the TTL refreshed").isGreaterThan(ttl - 1_000);
      assertThat(redis.strlen(key))
          .as("every admitted entry held")
          .isEqualTo(48 + 8L * (round + 2));
    }
  }

  @Test
  void aNewKey_andASmallKeyAtASmallerLimit_areReadOnce() {
    String name = RedisTestSupport.uniqueName("read-once");
    RateLimiter limiter =
        backend.rateLimiter(name, RateLimitConfig.builder().limit(100).window(WINDOW).build());
    SumCap cap =
        backend.sumCap(
            name, SumCapConfig.builder().cap(new BigDecimal("10.00")).window(WINDOW).build());
    long reads = calls(redis, "getrange");
    assertThat(limiter.tryAcquire("new").allowed()).isTrue();
    assertThat(calls(redis, "getrange") - reads).as("a new rate-limit key").isEqualTo(1);
    reads = calls(redis, "getrange");
    assertThat(cap.tryAdd("new", BigDecimal.ONE).allowed()).isTrue();
    assertThat(calls(redis, "getrange") - reads).as("a new sum-cap key").isEqualTo(1);
    for (int i = 0; i < 4; i++) {
      limiter.tryAcquire("small");
    }
    RateLimiter smaller =
        backend.rateLimiter(name, RateLimitConfig.builder().limit(2).window(WINDOW).build());
    reads = calls(redis, "getrange");
    assertThat(smaller.tryAcquire("small").allowed()).as("4 held, limit 2").isFalse();
    assertThat(calls(redis, "getrange") - reads).as("a small key rewritten").isEqualTo(1);
  }

  /**
   * With {@code due}, makes the next decision on {@code key} refresh its TTL (which a decision does
   * once per server second) by clearing the header's last refresh, its eleventh field.
   */
  private static void dueTtl(boolean due, String key) {
    if (due && redis.exists(key) == 1) {
      redis.setrange(key, 44, "\0\0\0\0");
    }
  }

  private static long serverSecond() {
    return Long.parseLong(redis.time().get(0));
  }

  private static long calls(RedisCommands<String, String> redis, String command) {
    Matcher m =
        Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(redis.info("commandstats"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
