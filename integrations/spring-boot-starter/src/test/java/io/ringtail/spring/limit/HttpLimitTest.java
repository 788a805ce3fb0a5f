package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.spring.limit.RingtailLimitProperties.Kind;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A limit of each kind, built from its settings: the sealed type of its kind with its decider, and
 * its answers, without a web application.
 */
class HttpLimitTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final LimitDecisions decisions = LimitDecisions.inProcess(time);

  private HttpLimit limit(String name, Kind kind, String limit, String amount) {
    RingtailLimitProperties.Limit p = new RingtailLimitProperties.Limit();
    p.setPath(List.of("/x"));
    p.setKind(kind);
    p.setLimit(new BigDecimal(limit));
    p.setAmount(amount);
    UnaryOperator<String> at = a -> a.isEmpty() ? "limit " + name : "limit " + name + "." + a;
    return HttpLimit.of(LimitSettings.of(name, p, time, at, null), decisions);
  }

  @Test
  void eachKind_isItsOwnType_holdingItsDecider() {
    assertThat(limit("log", Kind.SLIDING_LOG, "2", null))
        .isInstanceOf(HttpLimit.SlidingLog.class)
        .extracting(HttpLimit::kind)
        .isEqualTo(Kind.SLIDING_LOG);
    assertThat(limit("counted", Kind.BUCKETED, "2", null))
        .isInstanceOf(HttpLimit.Bucketed.class)
        .extracting(HttpLimit::kind)
        .isEqualTo(Kind.BUCKETED);
    assertThat(limit("spend", Kind.SUM_CAP, "10", "header:X-Amount"))
        .isInstanceOf(HttpLimit.SumCapped.class)
        .extracting(HttpLimit::kind)
        .isEqualTo(Kind.SUM_CAP);
  }

  @Test
  void aRateLimit_passesTheLimit_thenDenies() {
    HttpLimit log = limit("log", Kind.SLIDING_LOG, "2", null);
    Request r = new Request(Map.of());

    assertThat(log.decide(r, RateLimitFields.NONE)).isInstanceOf(LimitAnswer.Pass.class);
    assertThat(log.decide(r, RateLimitFields.NONE).fields().state()).isEqualTo("\"log\";r=0;t=60");
    LimitAnswer denied = log.decide(r, RateLimitFields.NONE);
    assertThat(denied).isInstanceOf(LimitAnswer.Deny.class);
    assertThat(log.counts().decisionCounts().allowed()).isEqualTo(2);
    assertThat(log.counts().decisionCounts().denied()).isEqualTo(1);
  }

  @Test
  void aSumCap_answersABadAmount_withoutDeciding() {
    HttpLimit spend = limit("spend", Kind.SUM_CAP, "10", "header:X-Amount");

    assertThat(body(spend, Map.of())).isEqualTo("missing amount (header:X-Amount) for \"spend\"\n");
    assertThat(body(spend, Map.of("X-Amount", "ten")))
        .isEqualTo("amount (header:X-Amount) for \"spend\" is not a number: ten\n");
    assertThat(body(spend, Map.of("X-Amount", "-1")))
        .isEqualTo("amount (header:X-Amount) for \"spend\" is negative: -1\n");
    assertThat(body(spend, Map.of("X-Amount", "0.001")))
        .startsWith("amount (header:X-Amount) for \"spend\": ");
    assertThat(spend.counts().decisionCounts().allowed()).isZero();
    assertThat(spend.counts().decisionCounts().denied()).isZero();

    LimitAnswer paid = spend.decide(new Request(Map.of("X-Amount", "4.50")), RateLimitFields.NONE);
    assertThat(paid).isEqualTo(new LimitAnswer.Pass(RateLimitFields.NONE.and(spend.policy, 5)));
  }

  @Test
  void aKeyThatCannotBeRead_throws_forTheEngineToAnswer503() {
    RingtailLimitProperties.Limit p = new RingtailLimitProperties.Limit();
    p.setPath(List.of("/x"));
    p.setKey("expression:header()");
    p.setLimit(BigDecimal.ONE);
    HttpLimit odd = HttpLimit.of(LimitSettings.of("odd", p, time, a -> a, null), decisions);

    assertThatThrownBy(() -> odd.decide(new Request(Map.of()), RateLimitFields.NONE))
        .isInstanceOf(RuntimeException.class);
  }

  private static String body(HttpLimit limit, Map<String, String> headers) {
    LimitAnswer a = limit.decide(new Request(headers), RateLimitFields.NONE);
    assertThat(a).isInstanceOf(LimitAnswer.BadAmount.class);
    assertThat(a.fields().state()).isNull();
    return ((LimitAnswer.BadAmount) a).body();
  }

  /** A request from 10.0.0.1 with {@code headers}. */
  private record Request(Map<String, String> headers) implements LimitedRequest {
    @Override
    public String getMethod() {
      return "GET";
    }

    @Override
    public String getPath() {
      return "/x";
    }

    @Override
    public String header(String name) {
      return headers.get(name);
    }

    @Override
    public Object attribute(String name) {
      return null;
    }

    @Override
    public String getRemoteAddress() {
      return "10.0.0.1";
    }

    @Override
    public String getPrincipal() {
      return null;
    }
  }
}
