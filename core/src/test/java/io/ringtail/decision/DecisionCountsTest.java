package io.ringtail.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Every in-process decision counts what it returned: allowed or denied, nothing lost. */
class DecisionCountsTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);

  private RateLimiter limiter(boolean bucketed) {
    RateLimitConfig config =
        RateLimitConfig.builder().limit(5).window(Duration.ofSeconds(10)).timeSource(time).build();
    return bucketed ? RateLimiter.inProcessBucketed(config) : RateLimiter.inProcess(config);
  }

  private SumCap cap() {
    return SumCap.inProcess(
        SumCapConfig.builder()
            .cap(new BigDecimal("10.00"))
            .window(Duration.ofSeconds(10))
            .timeSource(time)
            .build());
  }

  private ThresholdDetector detector() {
    return ThresholdDetector.inProcess(
        ThresholdConfig.builder()
            .threshold(3)
            .window(Duration.ofSeconds(10))
            .timeSource(time)
            .build());
  }

  @Test
  void randomStreams_countEachReturnedDecisionOnce() {
    Random random = new Random(28);
    for (boolean bucketed : new boolean[] {false, true}) {
      RateLimiter limiter = limiter(bucketed);
      long allowed = 0;
      long denied = 0;
      for (int i = 0; i < 2_000; i++) {
        time.advanceNanos(random.nextInt(50_000_000));
        if (limiter.tryAcquire("k" + random.nextInt(4)).allowed()) {
          allowed++;
        } else {
          denied++;
        }
      }
      assertThat(denied).isPositive();
      assertThat(((CountsDecisions) limiter).decisionCounts())
          .isEqualTo(new DecisionCounts(allowed, denied, 0, 0));
    }

    SumCap cap = cap();
    long capAllowed = 0;
    long capDenied = 0;
    for (int i = 0; i < 2_000; i++) {
      time.advanceNanos(random.nextInt(50_000_000));
      BigDecimal amount = BigDecimal.valueOf(random.nextInt(400), 2);
      if (cap.tryAdd("k" + random.nextInt(4), amount).allowed()) {
        capAllowed++;
      } else {
        capDenied++;
      }
    }
    assertThat(capDenied).isPositive();
    assertThat(((CountsDecisions) cap).decisionCounts())
        .isEqualTo(new DecisionCounts(capAllowed, capDenied, 0, 0));

    ThresholdDetector detector = detector();
    long quiet = 0;
    long fired = 0;
    for (int i = 0; i < 2_000; i++) {
      time.advanceNanos(random.nextInt(50_000_000));
      if (detector.record("k" + random.nextInt(4), "e" + random.nextInt(500)).fired()) {
        fired++;
      } else {
        quiet++;
      }
    }
    assertThat(fired).isPositive();
    assertThat(((CountsDecisions) detector).decisionCounts())
        .isEqualTo(new DecisionCounts(quiet, fired, 0, 0));
  }

  @Test
  void badInput_countsNowhere() {
    RateLimiter limiter = limiter(false);
    try {
      limiter.tryAcquire("");
    } catch (IllegalArgumentException expected) {
      // refused before deciding
    }
    assertThat(((CountsDecisions) limiter).decisionCounts().total()).isZero();
  }

  @Test
  void concurrentDecisions_loseNoCount() throws Exception {
    RateLimiter limiter = limiter(false);
    int threads = 4;
    int perThread = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Callable<long[]>> tasks = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        tasks.add(
            () -> {
              long[] mine = new long[2];
              for (int i = 0; i < perThread; i++) {
                mine[limiter.tryAcquire("k" + ((i + id) % 8)).allowed() ? 0 : 1]++;
              }
              return mine;
            });
      }
      long allowed = 0;
      long denied = 0;
      for (Future<long[]> f : pool.invokeAll(tasks)) {
        allowed += f.get()[0];
        denied += f.get()[1];
      }
      DecisionCounts counts = ((CountsDecisions) limiter).decisionCounts();
      assertThat(counts.total()).isEqualTo((long) threads * perThread);
      assertThat(counts).isEqualTo(new DecisionCounts(allowed, denied, 0, 0));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void everyInProcessFactory_counts() {
    List<Function<Void, Object>> factories =
        List.of(v -> limiter(false), v -> limiter(true), v -> cap(), v -> detector());
    for (Function<Void, Object> f : factories) {
      assertThat(f.apply(null)).isInstanceOf(CountsDecisions.class);
    }
  }
}
