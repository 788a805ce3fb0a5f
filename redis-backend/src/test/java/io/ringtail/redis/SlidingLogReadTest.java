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

  @Test
  void randomStreams_withManyEntriesLeavingAtOnce_matchTheExactModel() {
    for (int limit : new int[] {17, 50, 200}) {
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
      RateLimiter limiter =
          backend.rateLimiter(
              RedisTestSupport.uniqueName("read"),
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
        assertThat(limiter.tryAcquire("k", t))
            .as("operation %d limit %d", i, limit)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void sumCapRandomStreams_withManyEntriesLeavingAtOnce_matchTheExactModel() {
    BigDecimal capValue = new BigDecimal("100.00");
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    SumCap cap =
        backend.sumCap(
            RedisTestSupport.uniqueName("read-sum"),
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
      assertThat(cap.tryAdd("k", amount, t)).as("operation %d", i).isEqualTo(expected);
    }
  }

  @Test
  void aRingFilledAgainAfterEntriesLeft_isNotRewrittenAgain() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    int limit = 100;
    String name = RedisTestSupport.uniqueName("refill");
    RateLimiter limiter =
        backend.rateLimiter(
            name, RateLimitConfig.builder().limit(limit).window(WINDOW).timeSource(time).build());
    long sets = calls(redis, "set");
    for (int i = 0; i < limit; i++) {
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
      time.advanceNanos(WINDOW.toNanos() / limit);
    }
    assertThat(calls(redis, "set") - sets)
        .as("written whole when created and once more when the ring first filled")
        .isEqualTo(2);
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
        .as("the header and the oldest entries, the running total after the oldest among them")
        .isEqualTo(2L * denials);
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

  private static long calls(RedisCommands<String, String> redis, String command) {
    Matcher m =
        Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(redis.info("commandstats"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
