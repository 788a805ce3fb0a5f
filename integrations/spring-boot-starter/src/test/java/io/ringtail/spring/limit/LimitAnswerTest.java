package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.decision.RateDecision;
import io.ringtail.decision.SumDecision;
import io.ringtail.spring.limit.RateLimitFields.Policy;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A limit's decision mapped to the filter's answer: pass, deny (429), unavailable (503) or bad
 * amount (400), each with its status, {@code Retry-After}, body and header field members.
 */
class LimitAnswerTest {
  private static final Policy API = new Policy("api", 3, Duration.ofMinutes(1));
  private static final Policy SPEND = new Policy("spend", 10, Duration.ofHours(1));
  private static final RateLimitFields NONE = RateLimitFields.NONE;

  @Test
  void anAdmission_withRequestsLeft_passes_withRemainingAndNoT() {
    LimitAnswer a = LimitAnswer.of(API, new RateDecision(true, 2, 3, Duration.ZERO), NONE);

    assertThat(a).isEqualTo(new LimitAnswer.Pass(NONE.and(API, 2)));
    assertThat(a).isNotInstanceOf(LimitAnswer.Refusal.class);
  }

  @Test
  void theAdmissionThatTakesTheLast_passes_withTRoundedUp() {
    LimitAnswer a =
        LimitAnswer.of(API, new RateDecision(true, 0, 3, Duration.ofMillis(59_001)), NONE);

    assertThat(a).isEqualTo(new LimitAnswer.Pass(NONE.and(API, 0, 60)));
  }

  @Test
  void aRateDenial_is429_withRetryAfterAndT() {
    LimitAnswer a =
        LimitAnswer.of(API, new RateDecision(false, 0, 3, Duration.ofSeconds(40)), NONE);

    assertThat(a).isInstanceOf(LimitAnswer.Deny.class);
    LimitAnswer.Refusal r = (LimitAnswer.Refusal) a;
    assertThat(r.status()).isEqualTo(429);
    assertThat(r.retryAfter()).isEqualTo(40);
    assertThat(r.fields().state()).isEqualTo("\"api\";r=0;t=40");
    assertThat(r.body()).isEqualTo("rate limit \"api\" of 3 requests reached; retry in 40 s\n");
  }

  @Test
  void aRateDenial_underASecond_retriesAfterOne() {
    LimitAnswer a = LimitAnswer.of(API, new RateDecision(false, 0, 3, Duration.ofNanos(1)), NONE);

    assertThat(((LimitAnswer.Deny) a).retryAfter()).isEqualTo(1);
    assertThat(a.fields().state()).isEqualTo("\"api\";r=0;t=1");
  }

  @Test
  void aSumAdmission_passes_withTheRemainingRoundedDown_andNoT() {
    LimitAnswer a = LimitAnswer.of(SPEND, sum(true, "4.50", "4.50", Duration.ZERO), NONE);

    assertThat(a).isEqualTo(new LimitAnswer.Pass(NONE.and(SPEND, 5)));
  }

  @Test
  void aSumDenial_is429_withRetryAfterAndT() {
    LimitAnswer a =
        LimitAnswer.of(SPEND, sum(false, "0.01", "10.00", Duration.ofMinutes(45)), NONE);

    LimitAnswer.Deny d = (LimitAnswer.Deny) a;
    assertThat(d.status()).isEqualTo(429);
    assertThat(d.retryAfter()).isEqualTo(2700);
    assertThat(d.fields().state()).isEqualTo("\"spend\";r=0;t=2700");
    assertThat(d.body()).isEqualTo("cap \"spend\" of 10.00 reached; retry in 2700 s\n");
  }

  @Test
  void anAmountAboveTheCap_is429_withoutRetryAfterOrT() {
    LimitAnswer a = LimitAnswer.of(SPEND, sum(false, "11.00", "0.00", null), NONE);

    LimitAnswer.Deny d = (LimitAnswer.Deny) a;
    assertThat(d.status()).isEqualTo(429);
    assertThat(d.retryAfter()).isEqualTo(-1);
    assertThat(d.fields().state()).isEqualTo("\"spend\";r=10");
    assertThat(d.body()).isEqualTo("amount 11.00 is above the cap 10.00 of \"spend\"\n");
  }

  @Test
  void noDecision_is503_withItsRetryAfterAsT() {
    LimitAnswer.Unavailable u = LimitAnswer.unavailable(API, 2, NONE);

    assertThat(u.status()).isEqualTo(503);
    assertThat(u.retryAfter()).isEqualTo(2);
    assertThat(u.fields().policy()).isEqualTo("\"api\";q=3;w=60");
    assertThat(u.fields().state()).isEqualTo("\"api\";r=0;t=2");
    assertThat(u.body()).isEqualTo("limit \"api\" cannot be decided now; retry in 2 s\n");
  }

  @Test
  void aBadAmount_is400_withAPolicyMemberAndNoStateMember() {
    LimitAnswer.BadAmount b = LimitAnswer.badAmount(SPEND, "amount is odd", NONE);

    assertThat(b.status()).isEqualTo(400);
    assertThat(b.retryAfter()).isEqualTo(-1);
    assertThat(b.fields().policy()).isEqualTo("\"spend\";q=10;w=3600");
    assertThat(b.fields().state()).isNull();
    assertThat(b.body()).isEqualTo("amount is odd\n");
  }

  @Test
  void anAnswer_keepsTheMembersOfTheLimitsDecidedBefore() {
    RateLimitFields before = NONE.and(API, 1);

    LimitAnswer a =
        LimitAnswer.of(SPEND, sum(false, "0.01", "10.00", Duration.ofSeconds(5)), before);

    assertThat(a.fields().policy()).isEqualTo("\"api\";q=3;w=60, \"spend\";q=10;w=3600");
    assertThat(a.fields().state()).isEqualTo("\"api\";r=1, \"spend\";r=0;t=5");
    assertThat(LimitAnswer.unavailable(SPEND, 1, before).fields().state())
        .isEqualTo("\"api\";r=1, \"spend\";r=0;t=1");
    assertThat(LimitAnswer.badAmount(SPEND, "x", before).fields().state()).isEqualTo("\"api\";r=1");
  }

  /** A sum cap's decision of {@code amount} at a cap of 10.00, the key's total {@code total}. */
  private static SumDecision sum(boolean allowed, String amount, String total, Duration retry) {
    BigDecimal a = new BigDecimal(amount);
    BigDecimal cap = new BigDecimal("10.00");
    boolean exceeds = a.compareTo(cap) > 0;
    return new SumDecision(
        allowed,
        exceeds,
        a,
        new BigDecimal(total),
        cap,
        exceeds ? Optional.empty() : Optional.of(retry),
        Duration.ZERO);
  }
}
