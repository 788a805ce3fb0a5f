package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.DecisionCounts;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis decisions count what they return, on a real redis-server: answered by Redis, answered
 * locally (held denials), answered by the outage policy while the server is stopped (SIGSTOP).
 */
class RedisDecisionCountsTest extends DedicatedRedisTest {
  private static final Duration TIMEOUT = Duration.ofMillis(200);

  RedisDecisionCountsTest() {
    super(TIMEOUT);
  }

  @AfterEach
  void resume() {
    server.resume();
  }

  private static DecisionCounts counts(Object decision) {
    return ((CountsDecisions) decision).decisionCounts();
  }

  @Test
  void limiter_countsRedisAnswers_localDenials_andPolicyAnswers() {
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(TIMEOUT)
            .outagePolicy(OutagePolicy.FAIL_CLOSED)
            .build();
    RateLimiter limiter =
        backend.rateLimiter(
            "counts-" + System.nanoTime(),
            RateLimitConfig.builder().limit(2).window(Duration.ofMinutes(1)).build());
    assertThat(limiter.tryAcquire("a").allowed()).isTrue();
    assertThat(limiter.tryAcquire("a").allowed()).isTrue();
    assertThat(limiter.tryAcquire("a").allowed()).isFalse(); // Redis denies until a slot frees
    assertThat(limiter.tryAcquire("a").allowed()).isFalse(); // held: answered locally
    assertThat(counts(limiter)).isEqualTo(new DecisionCounts(2, 2, 1, 0));

    server.pause();
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.tryAcquire("b").allowed()).isFalse(); // fail closed
    }
    assertThat(counts(limiter)).isEqualTo(new DecisionCounts(2, 5, 1, 3));
  }

  @Test
  void capAndDetector_countAllowedDeniedAndPolicyAnswers() {
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(TIMEOUT)
            .outagePolicy(OutagePolicy.FAIL_OPEN)
            .build();
    SumCap cap =
        backend.sumCap(
            "counts-" + System.nanoTime(),
            SumCapConfig.builder()
                .cap(new BigDecimal("10.00"))
                .window(Duration.ofMinutes(1))
                .build());
    ThresholdDetector detector =
        backend.thresholdDetector(
            "counts-" + System.nanoTime(),
            ThresholdConfig.builder().threshold(2).window(Duration.ofMinutes(1)).build());
    assertThat(cap.tryAdd("u", new BigDecimal("6.00")).allowed()).isTrue();
    assertThat(cap.tryAdd("u", new BigDecimal("6.00")).allowed()).isFalse();
    assertThat(detector.record("u", "e1").fired()).isFalse();
    assertThat(detector.record("u", "e2").fired()).isTrue();
    assertThat(counts(cap)).isEqualTo(new DecisionCounts(1, 1, 0, 0));
    assertThat(counts(detector)).isEqualTo(new DecisionCounts(1, 1, 0, 0));

    server.pause();
    assertThat(cap.tryAdd("u", new BigDecimal("1.00")).allowed()).isTrue(); // fail open
    assertThat(detector.record("u", "e3").fired()).isFalse(); // fail open: not fired
    assertThat(counts(cap)).isEqualTo(new DecisionCounts(2, 1, 0, 1));
    assertThat(counts(detector)).isEqualTo(new DecisionCounts(2, 1, 0, 1));
  }
}
