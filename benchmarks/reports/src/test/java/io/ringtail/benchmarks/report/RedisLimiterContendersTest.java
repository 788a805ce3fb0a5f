package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.benchmarks.redis.RedisLimiter;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every contender of the limiter comparison, on a real redis-server, is configured for the same
 * limit: a burst on a fresh key is admitted exactly up to the limit, and keys are independent. The
 * report's helpers are checked on known inputs.
 */
class RedisLimiterContendersTest {
  private static RedisProcess server;

  @BeforeAll
  static void start() {
    server = RedisProcess.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void everyContender_burstOnFreshKey_admitsExactlyTheLimit() {
    List<String> labels = new ArrayList<>();
    for (RedisLimiter.Factory factory : RedisLimiter.CONTENDERS) {
      // 10 per minute: no token or log entry frees up while the burst runs
      try (RedisLimiter limiter = factory.open(server.uri(), 10, Duration.ofMinutes(1))) {
        labels.add(limiter.label());
        int admitted = 0;
        for (int i = 0; i < 25; i++) {
          admitted += limiter.tryAcquire("burst-" + labels.size()) ? 1 : 0;
        }
        assertThat(admitted).as(limiter.label()).isEqualTo(10);
        assertThat(limiter.tryAcquire("other-" + labels.size())).as(limiter.label()).isTrue();
      }
    }
    assertThat(labels).hasSize(RedisLimiter.CONTENDERS.size()).doesNotHaveDuplicates();
  }

  @Test
  void slidingMax_countsTheBusiestHalfOpenInterval() {
    long s = 1_000_000_000L;
    assertThat(LimiterMeasurements.slidingMax(new long[] {0, s / 2, s, s + 1, 2 * s}, s))
        .isEqualTo(3);
    assertThat(LimiterMeasurements.slidingMax(new long[] {0, s, 2 * s}, s)).isEqualTo(1);
    assertThat(LimiterMeasurements.slidingMax(new long[0], s)).isZero();
  }

  @Test
  void slidingMaxBounds_widenTheWindowByTwiceTheLongestRoundTripEachWay() {
    long s = 1_000_000_000L;
    long us = 1_000L;
    // sent 1,000.5 ms apart: one window holds both if either decision moved by 0.5 ms
    long[] sent = {0, 999_500 * us, 1_000_500 * us};
    assertThat(new LimiterMeasurements.Admissions(sent, 500 * us).slidingMaxBounds(s))
        .containsExactly(2, 3);
    assertThat(new LimiterMeasurements.Admissions(sent, 0).slidingMaxBounds(s))
        .containsExactly(2, 2);
  }

  @Test
  void schedule_isSortedAndHasTheBurstAroundThreeSeconds() {
    long[] times = LimiterMeasurements.schedule();
    for (int i = 1; i < times.length; i++) {
      assertThat(times[i]).isGreaterThanOrEqualTo(times[i - 1]);
    }
    long burst =
        Arrays.stream(times).filter(t -> t >= 2_900_000_000L && t < 3_100_000_000L).count();
    assertThat(burst).isEqualTo(300);
  }
}
