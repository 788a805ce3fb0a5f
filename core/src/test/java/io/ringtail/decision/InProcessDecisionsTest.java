package io.ringtail.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.testkit.ExactDecisionModels;
import io.ringtail.testkit.Races;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What only the in-process decisions promise: bounded keys, idle eviction, bounded memory per key.
 */
class InProcessDecisionsTest {
  private static final Duration W = Duration.ofSeconds(60);

  @Test
  void rateLimiter_idleKeysGoAway_withoutASweeper() {
    ManualTimeSource time = new ManualTimeSource(123);
    SlidingLogRateLimiter limiter =
        (SlidingLogRateLimiter)
            RateLimiter.inProcess(
                RateLimitConfig.builder().limit(5).window(W).timeSource(time).build());
    for (int i = 0; i < 1_000; i++) {
      limiter.tryAcquire("k" + i);
    }
    assertThat(limiter.estimatedKeys()).isEqualTo(1_000);
    time.advance(W.minusNanos(1));
    limiter.tryAcquire("k0");
    assertThat(limiter.estimatedKeys()).as("not idle for a whole window yet").isEqualTo(1_000);
    time.advanceNanos(1);
    assertThat(limiter.estimatedKeys()).isEqualTo(1);
    assertThat(limiter.tryAcquire("k1").remaining())
        .as("a forgotten key starts afresh")
        .isEqualTo(4);
  }

  @Test
  void thresholdDetector_idleKeysGoAway() {
    ManualTimeSource time = new ManualTimeSource();
    EventLogThresholdDetector detector =
        (EventLogThresholdDetector)
            ThresholdDetector.inProcess(
                ThresholdConfig.builder().threshold(3).window(W).timeSource(time).build());
    for (int i = 0; i < 500; i++) {
      detector.record("k" + i, "e");
    }
    time.advance(W);
    assertThat(detector.estimatedKeys()).isZero();
  }

  @Test
  void sumCap_idleKeysGoAway_afterTheLongerListenerCooldown() {
    ManualTimeSource time = new ManualTimeSource();
    SlidingLogSumCap cap =
        (SlidingLogSumCap)
            SumCap.inProcess(
                SumCapConfig.builder()
                    .cap(BigDecimal.TEN)
                    .window(W)
                    .timeSource(time)
                    .listener((k, d) -> {})
                    .listenerCooldown(W.multipliedBy(2))
                    .build());
    for (int i = 0; i < 500; i++) {
      cap.tryAdd("k" + i, BigDecimal.ONE);
    }
    time.advance(W);
    assertThat(cap.estimatedKeys()).as("kept to remember the cooldown").isEqualTo(500);
    time.advance(W);
    assertThat(cap.estimatedKeys()).isZero();
  }

  @Test
  void maximumKeys_boundsHeldKeys() {
    ManualTimeSource time = new ManualTimeSource();
    SlidingLogRateLimiter limiter =
        (SlidingLogRateLimiter)
            RateLimiter.inProcess(
                RateLimitConfig.builder().limit(5).window(W).timeSource(time).build(), 100);
    for (int i = 0; i < 10_000; i++) {
      limiter.tryAcquire("k" + i);
    }
    assertThat(limiter.estimatedKeys()).isLessThanOrEqualTo(100);
  }

  @Test
  void rateLimiterRing_growsToLimitAtMost_andShrinksWhenIdle() {
    ManualTimeSource time = new ManualTimeSource();
    SlidingLogRateLimiter limiter =
        (SlidingLogRateLimiter)
            RateLimiter.inProcess(
                RateLimitConfig.builder().limit(100).window(W).timeSource(time).build());
    assertThat(limiter.stateOf("quiet").ring).hasSize(SlidingLogRateLimiter.INITIAL_CAPACITY);
    for (int i = 0; i < 1_000; i++) {
      limiter.tryAcquire("flood");
    }
    assertThat(limiter.stateOf("flood").ring).hasSize(100);
    assertThat(limiter.stateOf("flood").size).isEqualTo(100);
    time.advance(W.minusSeconds(1));
    limiter.tryAcquire("flood");
    time.advance(Duration.ofSeconds(1));
    limiter.tryAcquire("flood");
    assertThat(limiter.stateOf("flood").ring).hasSize(SlidingLogRateLimiter.INITIAL_CAPACITY);
  }

  @Test
  void thresholdFlood_keepsAtMostMaxEventsPerKey() {
    ManualTimeSource time = new ManualTimeSource();
    EventLogThresholdDetector detector =
        (EventLogThresholdDetector)
            ThresholdDetector.inProcess(
                ThresholdConfig.builder().threshold(10).window(W).timeSource(time).build());
    for (int i = 0; i < 100_000; i++) {
      detector.record("scanner", "e" + i, time.nanoTime() - (i % 7) * 1_000_000L);
    }
    EventLogThresholdDetector.Events events = detector.stateOf("scanner");
    assertThat(events.size).isEqualTo(10);
    assertThat(events.times).hasSizeLessThanOrEqualTo(10);
  }

  @Test
  void thresholdFlood_isLoggedOncePerKey() {
    java.util.logging.Logger logger =
        java.util.logging.Logger.getLogger(ThresholdDetector.class.getName());
    List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Handler handler =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            warnings.add(java.text.MessageFormat.format(r.getMessage(), r.getParameters()));
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(handler);
    try {
      ThresholdDetector detector =
          ThresholdDetector.inProcess(
              ThresholdConfig.builder()
                  .threshold(3)
                  .window(W)
                  .timeSource(new ManualTimeSource())
                  .build());
      for (int i = 0; i < 100; i++) {
        detector.record("scanner", "e" + i);
        detector.record("quiet", "only");
      }
      assertThat(warnings).hasSize(1);
      assertThat(warnings.get(0)).contains("scanner", "more than 3 events");
    } finally {
      logger.removeHandler(handler);
    }
  }

  @Test
  void sumCapFlood_coalescesWithinMaxEntries_andNeverExceedsTheCapInAnyWindow() {
    ManualTimeSource time = new ManualTimeSource();
    BigDecimal capValue = new BigDecimal("5.00");
    SlidingLogSumCap cap =
        (SlidingLogSumCap)
            SumCap.inProcess(
                SumCapConfig.builder()
                    .cap(capValue)
                    .window(W)
                    .maxEntriesPerKey(8)
                    .timeSource(time)
                    .build());
    List<long[]> admitted = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(5);
    int conservativeDenials = 0;
    for (int i = 0; i < 20_000; i++) {
      time.advanceNanos(random.nextLong(W.toNanos() / 50));
      long t = time.nanoTime();
      long cents = 1 + random.nextInt(40);
      long exactTotal = 0;
      for (long[] a : admitted) {
        if (a[0] > t - W.toNanos()) {
          exactTotal += a[1];
        }
      }
      SumDecision d = cap.tryAdd("u", BigDecimal.valueOf(cents, 2));
      assertThat(cap.stateOf("u").size).isLessThanOrEqualTo(8);
      if (d.allowed()) {
        admitted.add(new long[] {t, cents});
        assertThat(exactTotal + cents).as("decision %d", i).isLessThanOrEqualTo(500);
      } else if (exactTotal + cents <= 500) {
        conservativeDenials++;
      }
    }
    assertThat(conservativeDenials).as("the flood did make coalescing deny early").isPositive();
    assertThat(admitted.size()).isGreaterThan(1_000);
  }

  @Test
  void sumCapBelowMaxEntries_isExact_noConservativeDenial() {
    ManualTimeSource time = new ManualTimeSource();
    BigDecimal capValue = new BigDecimal("5.00");
    SumCap cap =
        SumCap.inProcess(SumCapConfig.builder().cap(capValue).window(W).timeSource(time).build());
    ExactDecisionModels.Sum model = new ExactDecisionModels.Sum(capValue, W, 2);
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < 20_000; i++) {
      time.advanceNanos(random.nextLong(W.toNanos() / 50));
      BigDecimal amount = BigDecimal.valueOf(1 + random.nextInt(40), 2);
      assertThat(cap.tryAdd("u", amount)).isEqualTo(model.tryAdd("u", amount, time.nanoTime()));
    }
  }

  @Test
  void manyKeysConcurrently_eachAdmitsExactlyItsLimit() throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    int limit = 50;
    SlidingLogRateLimiter limiter =
        (SlidingLogRateLimiter)
            RateLimiter.inProcess(
                RateLimitConfig.builder().limit(limit).window(W).timeSource(time).build(),
                1_000_000);
    AtomicInteger next = new AtomicInteger();
    int keys = 200;
    int admitted =
        Races.countTrue(
            8, 2_000, () -> limiter.tryAcquire("k" + next.getAndIncrement() % keys).allowed());
    assertThat(admitted).as("every key admits exactly its limit").isEqualTo(keys * limit);
  }

  @Test
  void manyKeysConcurrently_sumCapAdmitsExactlyItsCapPerKey() throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    SumCap cap =
        SumCap.inProcess(
            SumCapConfig.builder().cap(new BigDecimal("1.00")).window(W).timeSource(time).build());
    AtomicInteger next = new AtomicInteger();
    int keys = 64;
    BigDecimal cent = new BigDecimal("0.01");
    int admitted =
        Races.countTrue(
            8, 2_000, () -> cap.tryAdd("k" + next.getAndIncrement() % keys, cent).allowed());
    assertThat(admitted).isEqualTo(keys * 100);
    for (int k = 0; k < keys; k++) {
      assertThat(cap.tryAdd("k" + k, BigDecimal.ZERO).total()).isEqualTo(new BigDecimal("1.00"));
    }
  }

  @Test
  void manyKeysConcurrently_thresholdCountsEachDistinctEventOnce() throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    int keys = 32;
    int idsPerKey = 40;
    ThresholdDetector detector =
        ThresholdDetector.inProcess(
            ThresholdConfig.builder()
                .threshold(idsPerKey)
                .maxEventsPerKey(idsPerKey + 1)
                .window(W)
                .timeSource(time)
                .build());
    AtomicInteger next = new AtomicInteger();
    int counted =
        Races.countTrue(
            8,
            2_000,
            () -> {
              int n = next.getAndIncrement();
              String key = "k" + n % keys;
              String id = "e" + (n / keys) % idsPerKey;
              return detector.record(key, id).outcome() == ThresholdDecision.Outcome.COUNTED;
            });
    assertThat(counted).isEqualTo(keys * idsPerKey);
    for (int k = 0; k < keys; k++) {
      assertThat(detector.record("k" + k, "new").count()).isEqualTo(idsPerKey + 1);
    }
  }
}
