package io.ringtail.keyed;

import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowSnapshot;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The examples of the README, run with injected time so they stay true. */
class ReadmeExamplesTest {

  @Test
  void keyedStatistics() {
    ManualTimeSource clock = new ManualTimeSource();
    KeyedWindows latency = KeyedWindows.builder()
        .maximumKeys(100_000)
        .timeSource(clock)
        .build();
    latency.record("GET /orders", 12_000_000);
    latency.record("GET /orders", 48_000_000);
    latency.record("tool:whois", 900_000_000);

    WindowSnapshot orders = latency.snapshot("GET /orders");
    assertThat(orders.count()).isEqualTo(2);
    assertThat(orders.mean()).isEqualTo(30_000_000);
    assertThat(orders.valueAtPercentile(95)).isCloseTo(48_000_000, within(480_000.0));
    assertThat(latency.snapshots()).containsOnlyKeys("GET /orders", "tool:whois");
  }

  @Test
  void correlationThreshold() {
    ManualTimeSource clock = new ManualTimeSource();
    List<String> alerts = new ArrayList<>();
    ThresholdDetector failedLogons = ThresholdDetector.inProcess(ThresholdConfig.builder()
        .threshold(10)
        .window(Duration.ofSeconds(60))
        .timeSource(clock)
        .listener((account, d) -> alerts.add(account + " x" + d.count()))
        .build());
    long t = clock.nanoTime();
    ThresholdDecision d = null;
    for (int i = 1; i <= 10; i++) {
      d = failedLogons.record("user:jdoe", "evt-" + i, t + i * 1_000_000_000L);
      assertThat(d.fired()).isEqualTo(i == 10);
    }
    assertThat(failedLogons.record("user:jdoe", "evt-3", t).outcome())
        .isEqualTo(ThresholdDecision.Outcome.DUPLICATE);
    assertThat(alerts).containsExactly("user:jdoe x10");
  }

  @Test
  void rateLimiter() {
    ManualTimeSource clock = new ManualTimeSource();
    RateLimiter perTool = RateLimiter.inProcess(RateLimitConfig.builder()
        .limit(30)
        .window(Duration.ofMinutes(1))
        .timeSource(clock)
        .build());
    for (int i = 0; i < 30; i++) {
      assertThat(perTool.tryAcquire("whois:alice").allowed()).isTrue();
      clock.advance(Duration.ofSeconds(1));
    }
    RateDecision d = perTool.tryAcquire("whois:alice");
    assertThat(d.allowed()).isFalse();
    assertThat(d.remaining()).isZero();
    assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void sumCap() {
    ManualTimeSource clock = new ManualTimeSource();
    SumCap weekly = SumCap.inProcess(SumCapConfig.builder()
        .cap(new BigDecimal("10.00"))
        .window(Duration.ofDays(7))
        .timeSource(clock)
        .build());
    weekly.tryAdd("user:42", new BigDecimal("3.33"));
    weekly.tryAdd("user:42", new BigDecimal("3.33"));
    SumDecision last = weekly.tryAdd("user:42", new BigDecimal("3.34"));
    assertThat(last.total()).isEqualTo(new BigDecimal("10.00"));

    clock.advance(Duration.ofDays(2));
    SumDecision denied = weekly.tryAdd("user:42", new BigDecimal("2.50"));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.remaining()).isEqualTo(new BigDecimal("0.00"));
    assertThat(denied.retryAfter()).contains(Duration.ofDays(5));

    SumDecision tooBig = weekly.tryAdd("user:7", new BigDecimal("12.00"));
    assertThat(tooBig.exceedsCap()).isTrue();
    assertThat(tooBig.retryAfter()).isEmpty();
  }
}
