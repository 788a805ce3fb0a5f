package io.ringtail.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.Headers;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The code blocks of the dashboard and examples page, verbatim between the docs markers: the
 * essence of each example program, compiled and run here (the programs themselves are tested end to
 * end beside them).
 */
class ExamplesPageSnippetsTest {
  private final List<String> alerts = new ArrayList<>();
  // the event the logon snippet records (fields: its listener's parameter is named account too)
  private final String account = "admin";
  private final String eventId = "evt-1";
  private final long eventTimeNanos = System.nanoTime();

  @Test
  void rateLimitedApi_answers429WithRetryAfterInWholeSeconds() {
    // docs:rate-limited-api-limiter:start
    RateLimiter limiter =
        RateLimiter.inProcess(
            RateLimitConfig.builder().limit(10).window(Duration.ofMinutes(1)).build());
    // or, shared by every instance of the API: the one line that changes
    // RateLimiter limiter =
    //     RedisBackend.builder(connection).build().rateLimiter("api-quota", config);
    // docs:rate-limited-api-limiter:end
    for (int i = 1; i <= 10; i++) {
      assertThat(serve(limiter, "client-a").getFirst("Retry-After")).as("request %d", i).isNull();
    }
    assertThat(serve(limiter, "client-a").getFirst("Retry-After")).isEqualTo("60");
    assertThat(serve(limiter, "client-b").getFirst("Retry-After")).isNull();
  }

  /** The page's per-request code; returns the response headers it set. */
  private static Headers serve(RateLimiter limiter, String apiKey) {
    Headers headers = new Headers();
    var exchange =
        new Object() {
          Headers getResponseHeaders() {
            return headers;
          }
        };
    // docs:rate-limited-api-request:start
    RateDecision d = limiter.tryAcquire(apiKey);
    if (!d.allowed()) {
      long seconds = Math.max(1, (d.retryAfter().toNanos() + 999_999_999L) / 1_000_000_000L);
      exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
      // ... 429
    }
    // docs:rate-limited-api-request:end
    return headers;
  }

  @Test
  void bruteForceLogons_alertsAtTheTenthDistinctFailure() {
    long start = eventTimeNanos;
    // docs:brute-force-logons:start
    ThresholdDetector detector =
        ThresholdDetector.inProcess(
            ThresholdConfig.builder()
                .threshold(10)
                .window(Duration.ofSeconds(60))
                .listener((account, decision) -> alert(account))
                .build());
    detector.record(account, eventId, eventTimeNanos);
    // docs:brute-force-logons:end
    for (int i = 2; i <= 9; i++) {
      detector.record(account, "evt-" + i, start + i * 1_000_000_000L);
    }
    assertThat(alerts).isEmpty();
    detector.record(account, "evt-10", start + 10_000_000_000L);
    assertThat(alerts).containsExactly("admin");
  }

  @Test
  void spendCap_reachesTenExactly() {
    String user = "bob";
    // docs:spend-cap:start
    SumCap cap =
        SumCap.inProcess(
            SumCapConfig.builder()
                .cap(new BigDecimal("10.00"))
                .window(Duration.ofDays(7))
                .scale(2)
                .build());
    SumDecision d = cap.tryAdd(user, new BigDecimal("3.34"));
    // docs:spend-cap:end
    assertThat(d.allowed()).isTrue();
    assertThat(cap.tryAdd(user, new BigDecimal("3.33")).allowed()).isTrue();
    assertThat(cap.tryAdd(user, new BigDecimal("3.33")).total()).isEqualTo(new BigDecimal("10.00"));
    assertThat(cap.tryAdd(user, new BigDecimal("0.01")).allowed()).isFalse();
  }

  private void alert(String account) {
    alerts.add(account);
  }
}
