package io.ringtail.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The examples of the keyed windows and decisions page: the snippets between the docs markers are
 * the page's code blocks verbatim; the other tests run the same calls with injected time.
 */
class ReadmeExamplesTest {
  private final List<String> alerts = new ArrayList<>();

  @Test
  void pageSnippet_keyedStatistics() {
    long elapsedNanos = 12_000_000;
    // docs:keyed-statistics:start
    KeyedWindows latency =
        KeyedWindows.builder()
            .maximumKeys(100_000) // least valuable keys are evicted past this
            .build(); // per key: 60 s in 12 buckets, 2 digits, compact

    latency.record("GET /orders", elapsedNanos);
    WindowSnapshot orders = latency.snapshot("GET /orders"); // empty (NaN mean) if unknown
    double p95 = orders.valueAtPercentile(95);
    Map<String, WindowSnapshot> all = latency.snapshots();
    // docs:keyed-statistics:end

    assertThat(orders.count()).isEqualTo(1);
    assertThat(p95).isCloseTo(12_000_000, within(120_000.0));
    assertThat(all).containsOnlyKeys("GET /orders");
    assertThat(latency.snapshot("unknown").mean()).isNaN();
  }

  @Test
  void pageSnippet_correlationThreshold() {
    long start = System.nanoTime();
    LogonEvent event = new LogonEvent("evt-1", start);
    // docs:correlation-threshold:start
    ThresholdDetector failedLogons =
        ThresholdDetector.inProcess(
            ThresholdConfig.builder()
                .threshold(10)
                .window(Duration.ofSeconds(60))
                .listener(
                    (account, d) -> alert(account, d.count())) // once per crossing, with cooldown
                .build());

    ThresholdDecision d = failedLogons.record("user:jdoe", event.id(), event.timeNanos());
    d.fired(); // true for the 10th distinct event within 60 s, false for the 9th
    d.outcome(); // COUNTED, DUPLICATE (id already held) or EXPIRED (older than latest - W)
    // docs:correlation-threshold:end

    assertThat(d.outcome()).isEqualTo(ThresholdDecision.Outcome.COUNTED);
    assertThat(d.fired()).isFalse();
    for (int i = 2; i <= 10; i++) {
      ThresholdDecision next = failedLogons.record("user:jdoe", "evt-" + i, start + i * 1_000_000L);
      assertThat(next.count()).isEqualTo(i);
      assertThat(next.fired()).isEqualTo(i == 10);
    }
    assertThat(alerts).containsExactly("user:jdoe x10");
  }

  @Test
  void pageSnippet_rateLimiter() {
    assertThat(quote("alice")).isEqualTo("200");
  }

  /**
   * The page's rate-limit snippet as a request handler would hold it (one limiter per call here).
   */
  private String quote(String userId) {
    // docs:rate-limiter:start
    RateLimiter perTool =
        RateLimiter.inProcess(
            RateLimitConfig.builder().limit(30).window(Duration.ofMinutes(1)).build());

    RateDecision d = perTool.tryAcquire("whois:" + userId);
    if (!d.allowed()) {
      return tooManyRequests(d.retryAfter()); // from the oldest admitted request in the window
    }
    // docs:rate-limiter:end
    assertThat(d.remaining()).isEqualTo(29);
    return "200";
  }

  @Test
  void pageSnippet_sumCap() {
    // docs:sum-cap:start
    SumCap weekly =
        SumCap.inProcess(
            SumCapConfig.builder().cap(new BigDecimal("10.00")).window(Duration.ofDays(7)).build());

    SumDecision d = weekly.tryAdd("user:42", new BigDecimal("2.50"));
    d.allowed();
    d.remaining();
    d.retryAfter();
    d.freesIn();
    // docs:sum-cap:end

    assertThat(d.allowed()).isTrue();
    assertThat(d.remaining()).isEqualTo(new BigDecimal("7.50"));
    assertThat(d.retryAfter()).contains(Duration.ZERO);
  }

  private void alert(String account, long count) {
    alerts.add(account + " x" + count);
  }

  private static String tooManyRequests(Duration retryAfter) {
    return "429 after " + retryAfter;
  }

  private record LogonEvent(String id, long timeNanos) {}

  @Test
  void keyedStatistics() {
    ManualTimeSource clock = new ManualTimeSource();
    KeyedWindows latency = KeyedWindows.builder().maximumKeys(100_000).timeSource(clock).build();
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
    ThresholdDetector failedLogons =
        ThresholdDetector.inProcess(
            ThresholdConfig.builder()
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
    RateLimiter perTool =
        RateLimiter.inProcess(
            RateLimitConfig.builder()
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
    SumCap weekly =
        SumCap.inProcess(
            SumCapConfig.builder()
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
