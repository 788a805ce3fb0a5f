package io.ringtail.spring.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ServiceLevelConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code ringtail.slo.<name>.*} bound and checked when the context starts: the declared
 * configuration with its defaults, nothing without a declaration, and a start that fails naming the
 * property for each kind of bad value.
 */
class SloPropertiesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(RingtailSloAutoConfiguration.class));

  private static final String CHECKOUT = "ringtail.slo.checkout.";

  @Test
  void nothingDeclared_noServiceLevels() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(ServiceLevels.class);
          assertThat(context).doesNotHaveBean(SloObservationHandler.class);
        });
  }

  @Test
  void aDeclaration_isBoundWithTheWorkbooksDefaults() {
    runner
        .withPropertyValues(
            CHECKOUT + "paths=/orders/**,/cart",
            CHECKOUT + "methods=post",
            CHECKOUT + "objectives.fast.threshold=300ms",
            CHECKOUT + "objectives.fast.target=0.99",
            CHECKOUT + "objectives.available.target=0.999")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ServiceLevels levels = context.getBean(ServiceLevels.class);
              ServiceLevelConfig config = levels.serviceLevel("checkout").config();
              assertThat(config.objectives())
                  .containsExactly(
                      Objective.latency("fast", Duration.ofMillis(300), 0.99),
                      Objective.availability("available", 0.999));
              assertThat(config.period()).isEqualTo(Duration.ofDays(30));
              assertThat(config.alerts()).isEqualTo(BurnRateAlert.workbook());
              Declared d = levels.declared().get(0);
              assertThat(d.observation).isEqualTo("http.server.requests");
              assertThat(d.evaluationInterval).isEqualTo(Duration.ofSeconds(30));
              assertThat(d.matcher.describe())
                  .containsEntry("paths", List.of("/orders/**", "/cart"))
                  .containsEntry("methods", List.of("POST"));
              // 5xx fail by default, nothing else
              List<Integer> failing = new ArrayList<>();
              for (int s = 0; s < d.failing.length; s++) {
                if (d.failing[s]) {
                  failing.add(s);
                }
              }
              assertThat(failing).hasSize(100).startsWith(500).endsWith(599);
            });
  }

  @Test
  void alertsPeriodAndFailures_areConfigurable() {
    runner
        .withPropertyValues(
            CHECKOUT + "objectives.available.target=0.99",
            CHECKOUT + "period=28d",
            CHECKOUT + "failures=5xx,429",
            CHECKOUT + "alerts[0].factor=14.4",
            CHECKOUT + "alerts[0].long-window=60s",
            CHECKOUT + "alerts[0].short-window=5s",
            CHECKOUT + "alerts[1].severity=ticket",
            CHECKOUT + "alerts[1].factor=1",
            CHECKOUT + "alerts[1].long-window=30m",
            CHECKOUT + "alerts[1].short-window=3m")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ServiceLevels levels = context.getBean(ServiceLevels.class);
              ServiceLevelConfig config = levels.serviceLevel("checkout").config();
              assertThat(config.period()).isEqualTo(Duration.ofDays(28));
              assertThat(config.alerts())
                  .containsExactly(
                      BurnRateAlert.page(14.4, Duration.ofSeconds(60), Duration.ofSeconds(5)),
                      BurnRateAlert.ticket(1, Duration.ofMinutes(30), Duration.ofMinutes(3)));
              boolean[] failing = levels.declared().get(0).failing;
              assertThat(failing[429]).isTrue();
              assertThat(failing[428]).isFalse();
              assertThat(failing[503]).isTrue();
            });
  }

  private void failsNaming(String message, String... properties) {
    runner
        .withPropertyValues(properties)
        .run(
            context -> {
              assertThat(context).hasFailed();
              List<String> messages = new ArrayList<>();
              for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.add(String.valueOf(t.getMessage()));
              }
              assertThat(messages).anySatisfy(m -> assertThat(m).contains(message));
            });
  }

  @Test
  void aTargetOutsideZeroToOne_failsNamingTheProperty() {
    failsNaming(
        "ringtail.slo.checkout.objectives.fast.target must be between 0 and 1 exclusive,"
            + " but was 1.0",
        CHECKOUT + "objectives.fast.threshold=300ms",
        CHECKOUT + "objectives.fast.target=1");
    failsNaming(
        "ringtail.slo.checkout.objectives.available.target must be between 0 and 1 exclusive,"
            + " but was 0.0",
        CHECKOUT + "objectives.available.target=0");
    failsNaming(
        "ringtail.slo.checkout.objectives.available.target must be set",
        CHECKOUT + "objectives.available.threshold=1s");
  }

  @Test
  void aLongWindowNotLongerThanItsShortWindow_failsNamingTheProperty() {
    failsNaming(
        "ringtail.slo.checkout.alerts[0].long-window must be longer than"
            + " ringtail.slo.checkout.alerts[0].short-window PT1H, but was PT5M",
        CHECKOUT + "objectives.available.target=0.99",
        CHECKOUT + "alerts[0].factor=14.4",
        CHECKOUT + "alerts[0].long-window=5m",
        CHECKOUT + "alerts[0].short-window=1h");
  }

  @Test
  void aThresholdThatIsNotADuration_failsNamingTheProperty() {
    failsNaming(
        "Failed to bind properties under 'ringtail.slo.checkout.objectives.fast.threshold' to"
            + " java.time.Duration",
        CHECKOUT + "objectives.fast.threshold=fast",
        CHECKOUT + "objectives.fast.target=0.99");
  }

  @Test
  void anUnknownStatusClass_failsNamingTheProperty() {
    failsNaming(
        "ringtail.slo.checkout.failures must be status classes 1xx to 5xx or codes 100 to 599,"
            + " but was \"6xx\"",
        CHECKOUT + "objectives.available.target=0.99",
        CHECKOUT + "failures=5xx,6xx");
  }

  @Test
  void otherBadValues_failNamingTheProperty() {
    failsNaming(
        "ringtail.slo.checkout.objectives must declare at least one objective",
        CHECKOUT + "paths=/orders/**");
    failsNaming(
        "ringtail.slo.checkout.alerts[0].severity must be page or ticket, but was \"urgent\"",
        CHECKOUT + "objectives.available.target=0.99",
        CHECKOUT + "alerts[0].severity=urgent",
        CHECKOUT + "alerts[0].factor=14.4",
        CHECKOUT + "alerts[0].long-window=1h",
        CHECKOUT + "alerts[0].short-window=5m");
    failsNaming(
        "ringtail.slo.checkout.paths must be path patterns starting with /",
        CHECKOUT + "objectives.available.target=0.99",
        CHECKOUT + "paths=orders");
    failsNaming(
        "ringtail.slo.checkout.evaluation-interval must be a positive duration",
        CHECKOUT + "objectives.available.target=0.99",
        CHECKOUT + "evaluation-interval=0s");
    failsNaming(
        "ringtail.slo.checkout.period must be at least alert page-3d's longWindow PT72H,"
            + " but was PT24H",
        CHECKOUT + "objectives.available.target=0.99",
        CHECKOUT + "period=1d",
        CHECKOUT + "alerts[0].factor=2",
        CHECKOUT + "alerts[0].long-window=3d",
        CHECKOUT + "alerts[0].short-window=1h");
  }
}
