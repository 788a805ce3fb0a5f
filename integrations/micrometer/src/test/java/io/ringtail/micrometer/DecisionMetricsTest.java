package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.DecisionCounts;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionMetricsTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);

  @Test
  void aLimitersCounts_areCountersInPrometheus() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RateLimiter limiter =
        RateLimiter.inProcess(
            RateLimitConfig.builder()
                .limit(2)
                .window(Duration.ofMinutes(1))
                .timeSource(time)
                .build());
    DecisionMetrics.monitor(registry, (CountsDecisions) limiter, "perTool");
    for (int i = 0; i < 5; i++) {
      limiter.tryAcquire("whois");
    }
    assertThat(((CountsDecisions) limiter).decisionCounts())
        .isEqualTo(new DecisionCounts(2, 3, 0, 0));
    assertThat(registry.scrape())
        .contains(
            "ringtail_decisions_total{decision=\"perTool\",outcome=\"allowed\",type=\"rate_limiter\"} 2.0")
        .contains(
            "ringtail_decisions_total{decision=\"perTool\",outcome=\"denied\",type=\"rate_limiter\"} 3.0")
        .contains(
            "ringtail_decisions_answered_total{by=\"outage_policy\",decision=\"perTool\",type=\"rate_limiter\"} 0.0");
  }

  @Test
  void aDetector_countsFiredAndNotFired() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ThresholdDetector logons =
        ThresholdDetector.inProcess(
            ThresholdConfig.builder()
                .threshold(2)
                .window(Duration.ofMinutes(1))
                .timeSource(time)
                .build());
    DecisionMetrics.monitor(registry, (CountsDecisions) logons, "failedLogons");
    logons.record("jdoe", "e1");
    logons.record("jdoe", "e2");
    assertThat(registry.scrape())
        .contains("decision=\"failedLogons\",outcome=\"fired\",type=\"threshold_detector\"} 1.0")
        .contains(
            "decision=\"failedLogons\",outcome=\"not_fired\",type=\"threshold_detector\"} 1.0");
  }

  @Test
  void somethingThatIsNotADecision_isRefused() {
    CountsDecisions other = () -> new DecisionCounts(0, 0, 0, 0);
    assertThatThrownBy(() -> DecisionMetrics.of(other, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("decision must be a RateLimiter, SumCap or ThresholdDetector");
  }

  @Test
  void keyTags_carryAKeyOfSeveralParts() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KeyedWindows endpoints =
        KeyedWindows.builder()
            .window(WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build())
            .timeSource(time)
            .build();
    KeyedWindowMetrics.builder(endpoints, "http")
        .keyTags(
            key -> {
              String[] parts = key.split(" ");
              return Tags.of("method", parts[0], "uri", parts[1]);
            })
        .build()
        .bindTo(registry);
    endpoints.record("GET /orders/{id}", 5_000_000);
    assertThat(registry.scrape())
        .contains(
            "ringtail_keyed_samples{method=\"GET\",uri=\"/orders/{id}\",window=\"http\"} 1.0");
  }

  @Test
  void keyTags_mayNotNameWindowOrPhi() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KeyedWindows keyed = KeyedWindows.builder().timeSource(time).build();
    KeyedWindowMetrics.builder(keyed, "bad")
        .keyTags(key -> List.of(Tag.of("window", key)))
        .build()
        .bindTo(registry);
    keyed.record("a", 1); // the listener refuses the key's tags, logs, loses nothing
    assertThat(keyed.snapshot("a").count()).isEqualTo(1);
    assertThat(registry.scrape()).doesNotContain("ringtail_keyed_samples");
  }
}
