package io.ringtail.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceLevelConfigTest {
  private static final Duration MS_300 = Duration.ofMillis(300);

  @Test
  void defaults_areThirtyDays_andTheWorkbooksAlerts() {
    ServiceLevelConfig c = ServiceLevelConfig.builder("checkout").availability("ok", 0.999).build();

    assertThat(c.period()).isEqualTo(Duration.ofDays(30));
    assertThat(c.alerts())
        .extracting(BurnRateAlert::name)
        .containsExactly("page-1h", "page-6h", "ticket-3d");
    assertThat(c.alerts())
        .extracting(BurnRateAlert::factor, BurnRateAlert::longWindow, BurnRateAlert::shortWindow)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(14.4, Duration.ofHours(1), Duration.ofMinutes(5)),
            org.assertj.core.groups.Tuple.tuple(6.0, Duration.ofHours(6), Duration.ofMinutes(30)),
            org.assertj.core.groups.Tuple.tuple(1.0, Duration.ofDays(3), Duration.ofHours(6)));
    assertThat(c.windows())
        .containsExactly(
            Duration.ofMinutes(5),
            Duration.ofMinutes(30),
            Duration.ofHours(1),
            Duration.ofHours(6),
            Duration.ofDays(3),
            Duration.ofDays(30));
  }

  @Test
  void build_mayBeCalledAgain_andTheConfigIsImmutable() {
    ServiceLevelConfig.Builder b =
        ServiceLevelConfig.builder("checkout").latency("fast", MS_300, 0.99);
    ServiceLevelConfig first = b.build();
    b.availability("ok", 0.999).period(Duration.ofDays(28));
    ServiceLevelConfig second = b.build();

    assertThat(first.objectives()).hasSize(1);
    assertThat(first.period()).isEqualTo(Duration.ofDays(30));
    assertThat(second.objectives()).extracting(Objective::name).containsExactly("fast", "ok");
    assertThat(second.period()).isEqualTo(Duration.ofDays(28));
    assertThatThrownBy(() -> second.objectives().add(Objective.availability("x", 0.9)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void objective_target_outsideZeroToOne_isRefused_namingTarget() {
    for (double target : new double[] {0, 1, -0.5, 1.5, Double.NaN}) {
      assertThatThrownBy(() -> Objective.availability("ok", target))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("target must be between 0 and 1 exclusive, but was " + target);
      assertThatThrownBy(() -> Objective.latency("fast", MS_300, target))
          .hasMessage("target must be between 0 and 1 exclusive, but was " + target);
    }
  }

  @Test
  void objective_threshold_notPositive_isRefused_namingThreshold() {
    assertThatThrownBy(() -> Objective.latency("fast", Duration.ZERO, 0.99))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threshold must be positive, but was PT0S");
    assertThatThrownBy(() -> Objective.latency("fast", Duration.ofMillis(-1), 0.99))
        .hasMessage("threshold must be positive, but was PT-0.001S");
    assertThatThrownBy(() -> Objective.latency("fast", null, 0.99))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("threshold");
  }

  @Test
  void objective_blankName_isRefused() {
    assertThatThrownBy(() -> Objective.availability(" ", 0.9))
        .hasMessage("name must be non-blank, but was \" \"");
    assertThatThrownBy(() -> ServiceLevelConfig.builder(""))
        .hasMessage("name must be non-blank, but was \"\"");
  }

  @Test
  void alert_longWindow_notLongerThanShort_isRefused_namingLongWindow() {
    assertThatThrownBy(() -> BurnRateAlert.page(14.4, Duration.ofMinutes(1), Duration.ofMinutes(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("longWindow must be longer than shortWindow PT5M, but was PT1M");
    assertThatThrownBy(() -> BurnRateAlert.page(14.4, Duration.ofMinutes(5), Duration.ofMinutes(5)))
        .hasMessage("longWindow must be longer than shortWindow PT5M, but was PT5M");
  }

  @Test
  void alert_badFactorOrWindow_isRefused_namingIt() {
    for (double factor : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(
              () -> BurnRateAlert.page(factor, Duration.ofHours(1), Duration.ofMinutes(5)))
          .hasMessage("factor must be positive and finite, but was " + factor);
    }
    assertThatThrownBy(() -> BurnRateAlert.ticket(1, Duration.ofHours(1), Duration.ZERO))
        .hasMessage("shortWindow must be positive, but was PT0S");
    assertThatThrownBy(
            () -> BurnRateAlert.ticket(1, Duration.ofHours(1), Duration.ofNanos(1_500_000)))
        .hasMessage("shortWindow must be a whole number of milliseconds, but was PT0.0015S");
    assertThatThrownBy(() -> BurnRateAlert.of(null, 1, Duration.ofHours(1), Duration.ofMinutes(5)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("severity");
  }

  @Test
  void build_withoutObjective_isRefused() {
    assertThatThrownBy(() -> ServiceLevelConfig.builder("checkout").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "service level \"checkout\" has no objective: add one with latency(...),"
                + " availability(...) or objective(...)");
  }

  @Test
  void build_twoObjectivesOfOneName_isRefused() {
    assertThatThrownBy(
            () ->
                ServiceLevelConfig.builder("checkout")
                    .latency("x", MS_300, 0.99)
                    .availability("x", 0.99)
                    .build())
        .hasMessage("objective name must be unique in a service level, but was \"x\"");
  }

  @Test
  void build_tooManyObjectivesOrAlerts_isRefused() {
    ServiceLevelConfig.Builder b = ServiceLevelConfig.builder("checkout");
    for (int i = 0; i <= ServiceLevelConfig.MAX_OBJECTIVES; i++) {
      b.availability("o" + i, 0.9);
    }
    assertThatThrownBy(b::build).hasMessage("objectives must be at most 16, but was 17");

    List<BurnRateAlert> alerts = new ArrayList<>();
    for (int i = 0; i <= ServiceLevelConfig.MAX_ALERTS; i++) {
      alerts.add(BurnRateAlert.page(2, Duration.ofMinutes(10 + i), Duration.ofMinutes(1)));
    }
    assertThatThrownBy(
            () ->
                ServiceLevelConfig.builder("checkout")
                    .availability("ok", 0.9)
                    .alerts(alerts)
                    .build())
        .hasMessage("alerts must be at most 8, but was 9");
  }

  @Test
  void build_twoAlertsOfOneName_isRefused() {
    assertThatThrownBy(
            () ->
                ServiceLevelConfig.builder("checkout")
                    .availability("ok", 0.999)
                    .alerts(
                        BurnRateAlert.page(14.4, Duration.ofHours(1), Duration.ofMinutes(5)),
                        BurnRateAlert.page(10, Duration.ofHours(1), Duration.ofMinutes(10)))
                    .build())
        .hasMessage("alert name must be unique in a service level, but was \"page-1h\"");
  }

  @Test
  void build_periodShorterThanALongWindow_isRefused_namingPeriod() {
    assertThatThrownBy(
            () ->
                ServiceLevelConfig.builder("checkout")
                    .availability("ok", 0.999)
                    .period(Duration.ofDays(2))
                    .build())
        .hasMessage("period must be at least alert ticket-3d's longWindow PT72H, but was PT48H");
  }

  @Test
  void build_badPeriod_isRefused_namingPeriod() {
    ServiceLevelConfig.Builder b =
        ServiceLevelConfig.builder("checkout").availability("ok", 0.999).alerts(List.of());
    assertThatThrownBy(() -> b.period(Duration.ZERO).build())
        .hasMessage("period must be positive, but was PT0S");
    assertThatThrownBy(() -> b.period(Duration.ofNanos(1_000_001)).build())
        .hasMessage("period must be a whole number of milliseconds, but was PT0.001000001S");
    assertThatThrownBy(() -> b.period(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("period");
  }

  @Test
  void build_aFactorTheObjectiveCannotReach_isRefused_namingTheAlertsFactor() {
    // at 90 %, every event bad burns at 10: a 14.4 page could never fire
    assertThatThrownBy(() -> ServiceLevelConfig.builder("checkout").availability("ok", 0.9).build())
        .hasMessage(
            "alerts[page-1h].factor must be below 10.000000000000002, the highest burn rate of"
                + " objective \"ok\" (1 / (1 - target), every event bad), but was 14.4");
  }

  @Test
  void alerts_mayBeNone() {
    ServiceLevelConfig c =
        ServiceLevelConfig.builder("checkout")
            .availability("ok", 0.5)
            .alerts(Collections.emptyList())
            .period(Duration.ofDays(7))
            .build();

    assertThat(c.alerts()).isEmpty();
    assertThat(c.windows()).containsExactly(Duration.ofDays(7));
  }

  @Test
  void alert_name_isSeverityAndLongWindow() {
    assertThat(BurnRateAlert.page(2, Duration.ofMinutes(90), Duration.ofMinutes(5)).name())
        .isEqualTo("page-1h30m");
    assertThat(BurnRateAlert.ticket(1, Duration.ofDays(28), Duration.ofDays(1)).name())
        .isEqualTo("ticket-28d");
  }

  @Test
  void windowLabel_isAPrometheusDuration() {
    assertThat(SloConventions.windowLabel(Duration.ofMinutes(5))).isEqualTo("5m");
    assertThat(SloConventions.windowLabel(Duration.ofDays(30))).isEqualTo("30d");
    assertThat(SloConventions.windowLabel(Duration.ofMillis(90_061_001))).isEqualTo("1d1h1m1s1ms");
    assertThat(SloConventions.windowLabel(Duration.ofMillis(1500))).isEqualTo("1s500ms");
    assertThatThrownBy(() -> SloConventions.windowLabel(Duration.ofNanos(10)))
        .hasMessage("window must be a whole number of milliseconds, but was PT0.00000001S");
  }

  @Test
  void eventCounts_refuseGoodAboveTotal_orNegative() {
    assertThatThrownBy(() -> new EventCounts(3, 2))
        .hasMessage("total must be at least good (3), but was 2");
    assertThatThrownBy(() -> new EventCounts(-1, 2))
        .hasMessage("good must be zero or positive, but was -1");
    assertThat(new EventCounts(1, 4).plus(new EventCounts(2, 2))).isEqualTo(new EventCounts(3, 6));
    assertThat(EventCounts.NONE.ratio()).isNaN();
  }
}
