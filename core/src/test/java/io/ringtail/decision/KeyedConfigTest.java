package io.ringtail.decision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.math.BigDecimal;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class KeyedConfigTest {

  private static void rejects(ThrowingCallable call, String... fragments) {
    var assertion = assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class);
    for (String f : fragments) {
      assertion.hasMessageContaining(f);
    }
  }

  private static void rejectsNull(ThrowingCallable call, String parameter) {
    assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessage(parameter);
  }

  @Test
  void threshold_zeroOrNegative_rejected() {
    rejects(() -> ThresholdConfig.builder().threshold(0).build(), "threshold", "but was 0");
    rejects(() -> ThresholdConfig.builder().threshold(-3).build(), "threshold", "-3");
  }

  @Test
  void window_zeroNegativeOrNull_rejected() {
    rejects(
        () -> ThresholdConfig.builder().threshold(1).window(Duration.ZERO).build(),
        "window",
        "PT0S");
    rejects(
        () -> RateLimitConfig.builder().limit(1).window(Duration.ofSeconds(-1)).build(),
        "window",
        "PT-1S");
    rejectsNull(() -> SumCapConfig.builder().cap(BigDecimal.ONE).window(null).build(), "window");
  }

  @Test
  void limit_zeroOrTooLarge_rejected() {
    rejects(() -> RateLimitConfig.builder().build(), "limit", "but was 0");
    rejects(() -> RateLimitConfig.builder().limit(RateLimitConfig.MAX_LIMIT + 1).build(), "limit");
  }

  @Test
  void maxEventsPerKey_belowThreshold_rejected() {
    rejects(
        () -> ThresholdConfig.builder().threshold(10).maxEventsPerKey(9).build(),
        "maxEventsPerKey",
        "9");
    assertThat(ThresholdConfig.builder().threshold(10).build().maxEventsPerKey()).isEqualTo(10);
  }

  @Test
  void cap_zeroNegativeOrTooPrecise_rejected() {
    rejectsNull(() -> SumCapConfig.builder().build(), "cap");
    rejects(() -> SumCapConfig.builder().cap(BigDecimal.ZERO).build(), "cap", "0");
    rejects(() -> SumCapConfig.builder().cap(new BigDecimal("-1")).build(), "cap", "-1");
    rejects(() -> SumCapConfig.builder().cap(new BigDecimal("1.005")).build(), "cap", "1.005");
    rejects(() -> SumCapConfig.builder().cap(new BigDecimal("1e30")).build(), "cap");
    rejects(() -> SumCapConfig.builder().cap(BigDecimal.TEN).scale(10).build(), "scale", "10");
  }

  @Test
  void cap_andAmounts_withHugeExponents_areJudgedAtOnce() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(2),
        () -> {
          rejects(
              () -> SumCapConfig.builder().cap(new BigDecimal("1E+10000000")).build(),
              "cap",
              "at most",
              "1E+10000000");
          rejects(
              () -> SumCapConfig.builder().cap(new BigDecimal("1E-30000000")).build(),
              "cap must be a decimal with at most 2 digits after the point",
              "1E-30000000");
          SumCapConfig config = SumCapConfig.builder().cap(new BigDecimal("10")).build();
          assertThat(config.toUnits(new BigDecimal("1E+10000000"))).isEqualTo(Long.MAX_VALUE);
          assertThat(config.toUnits(new BigDecimal("10.001"))).isEqualTo(Long.MAX_VALUE);
          rejects(() -> config.toUnits(new BigDecimal("1E-30000000")), "amount", "1E-30000000");
          assertThat(config.atScale(new BigDecimal("1E+10000000")))
              .isEqualTo(new BigDecimal("1E+10000000"));
          assertThat(config.atScale(new BigDecimal("1e30")).scale()).isEqualTo(2);
          assertThat(config.toUnits(new BigDecimal("0E-30000000"))).isZero();
          assertThat(config.toUnits(new BigDecimal("2.5000000000000"))).isEqualTo(250);
        });
  }

  @Test
  void cap_isNormalisedToScale() {
    SumCapConfig config = SumCapConfig.builder().cap(new BigDecimal("10")).build();
    assertThat(config.cap()).isEqualTo(new BigDecimal("10.00"));
    assertThat(config.capUnits()).isEqualTo(1000);
    assertThat(config.toUnits(new BigDecimal("3.3"))).isEqualTo(330);
    assertThat(config.toUnits(new BigDecimal("10.01"))).isEqualTo(Long.MAX_VALUE);
    assertThat(config.fromUnits(334)).isEqualTo(new BigDecimal("3.34"));
  }

  @Test
  void cooldownAndIdleExpiry_validated() {
    rejects(
        () -> RateLimitConfig.builder().limit(1).listenerCooldown(Duration.ofSeconds(-1)).build(),
        "listenerCooldown",
        "PT-1S");
    rejects(
        () ->
            RateLimitConfig.builder()
                .limit(1)
                .window(Duration.ofSeconds(60))
                .idleExpiry(Duration.ofSeconds(59))
                .build(),
        "idleExpiry",
        "PT59S");
    rejectsNull(
        () -> ThresholdConfig.builder().threshold(1).timeSource(null).build(), "timeSource");
  }

  @Test
  void idleExpiry_defaultsToWindow_orLongerCooldownWithListener() {
    assertThat(RateLimitConfig.builder().limit(1).build().idleExpiry())
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(
            RateLimitConfig.builder()
                .limit(1)
                .listener((k, d) -> {})
                .listenerCooldown(Duration.ofMinutes(5))
                .build()
                .idleExpiry())
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(
            RateLimitConfig.builder()
                .limit(1)
                .listenerCooldown(Duration.ofMinutes(5))
                .build()
                .idleExpiry())
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void builders_areReusable_andToBuilderRoundTrips() {
    RateLimitConfig.Builder b = RateLimitConfig.builder().limit(3);
    RateLimitConfig first = b.build();
    RateLimitConfig second = b.limit(4).build();
    assertThat(first.limit()).isEqualTo(3);
    assertThat(second.limit()).isEqualTo(4);
    assertThat(first.toBuilder().build().toString()).isEqualTo(first.toString());
    SumCapConfig cap = SumCapConfig.builder().cap(BigDecimal.TEN).scale(3).build();
    assertThat(cap.toBuilder().build().toString()).isEqualTo(cap.toString());
    ThresholdConfig th = ThresholdConfig.builder().threshold(5).maxEventsPerKey(8).build();
    assertThat(th.toBuilder().build().toString()).isEqualTo(th.toString());
  }

  @Test
  void inProcess_maximumKeysZero_rejected() {
    rejects(
        () -> RateLimiter.inProcess(RateLimitConfig.builder().limit(1).build(), 0),
        "maximumKeys",
        "0");
    rejectsNull(() -> SumCap.inProcess(null), "config");
  }

  @Test
  void decisions_validateTheirComponents() {
    rejects(() -> new RateDecision(true, 2, 1, Duration.ZERO), "remaining");
    rejects(() -> new RateDecision(false, 0, 1, Duration.ZERO), "retryAfter");
    rejects(
        () -> new ThresholdDecision(ThresholdDecision.Outcome.DUPLICATE, 5, 3, true), "crossed");
    BigDecimal ten = new BigDecimal("10.00");
    rejects(
        () ->
            new SumDecision(
                true,
                false,
                BigDecimal.ONE,
                BigDecimal.ONE,
                ten,
                java.util.Optional.empty(),
                Duration.ZERO),
        "retryAfter");
    rejects(
        () ->
            new SumDecision(
                false,
                false,
                new BigDecimal("11"),
                BigDecimal.ONE,
                ten,
                java.util.Optional.of(Duration.ZERO),
                Duration.ZERO),
        "exceedsCap");
  }
}
