package io.ringtail.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.ServiceLevelConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

class SloRulesTest {
  static final ServiceLevelConfig CHECKOUT =
      ServiceLevelConfig.builder("checkout")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .availability("available", 0.999)
          .period(Duration.ofDays(28))
          .build();

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> rulesOf(String yaml, int group) {
    Map<String, Object> doc = new Yaml().load(yaml);
    List<Map<String, Object>> groups = (List<Map<String, Object>>) doc.get("groups");
    return (List<Map<String, Object>>) groups.get(group).get("rules");
  }

  @Test
  void yaml_holdsPerObjective_errorRatiosAndBurnRatesPerWindow_budget_sli_andAlerts() {
    String yaml = SloRules.builder().serviceLevel(CHECKOUT).matcher("job", "shop").build().yaml();
    Map<String, Object> doc = new Yaml().load(yaml);
    @SuppressWarnings("unchecked")
    Map<String, Object> group = ((List<Map<String, Object>>) doc.get("groups")).get(0);
    assertThat(group.get("name")).isEqualTo("ringtail-slo-checkout");
    assertThat(group).doesNotContainKey("interval");
    List<Map<String, Object>> rules = rulesOf(yaml, 0);
    // per objective: 6 windows x (error ratio, burn rate), sli, budget, 3 alerts
    assertThat(rules).hasSize(2 * (6 + 6 + 2 + 3));

    Map<String, Object> ratio5m = rules.get(0);
    assertThat(ratio5m.get("record")).isEqualTo("ringtail_slo:error_ratio:rate");
    assertThat(ratio5m.get("expr"))
        .isEqualTo(
            "(sum(rate(ringtail_slo_events_total{slo=\"checkout\",objective=\"fast\",job=\"shop\"}[5m]))"
                + " - sum(rate(ringtail_slo_good_events_total{slo=\"checkout\",objective=\"fast\",job=\"shop\"}[5m])))"
                + " / sum(rate(ringtail_slo_events_total{slo=\"checkout\",objective=\"fast\",job=\"shop\"}[5m]))");
    assertThat(ratio5m.get("labels"))
        .isEqualTo(Map.of("slo", "checkout", "objective", "fast", "window", "5m"));
    assertThat(rules.get(5).get("expr").toString()).contains("[28d]");

    Map<String, Object> burn1h = rules.get(8);
    assertThat(burn1h.get("record")).isEqualTo("ringtail_slo:burn_rate:rate");
    assertThat(burn1h.get("expr"))
        .isEqualTo(
            "ringtail_slo:error_ratio:rate{slo=\"checkout\",objective=\"fast\",window=\"1h\"} / (1 - 0.99)");
    assertThat(rules.get(12).get("record")).isEqualTo("ringtail_slo:sli");
    assertThat(rules.get(13).get("expr"))
        .isEqualTo(
            "1 - ringtail_slo:burn_rate:rate{slo=\"checkout\",objective=\"fast\",window=\"28d\"}");

    Map<String, Object> page = rules.get(14);
    assertThat(page.get("alert")).isEqualTo("RingtailErrorBudgetBurn");
    assertThat(page.get("expr"))
        .isEqualTo(
            "ringtail_slo:burn_rate:rate{slo=\"checkout\",objective=\"fast\",window=\"1h\"} > 14.4"
                + " and ignoring (window)"
                + " ringtail_slo:burn_rate:rate{slo=\"checkout\",objective=\"fast\",window=\"5m\"} > 14.4");
    assertThat(page.get("labels"))
        .isEqualTo(
            Map.of(
                "slo", "checkout",
                "objective", "fast",
                "severity", "page",
                "alert", "page-1h",
                "long_window", "1h",
                "short_window", "5m"));
    @SuppressWarnings("unchecked")
    Map<String, Object> annotations = (Map<String, Object>) page.get("annotations");
    assertThat(annotations.get("description").toString())
        .contains("above 14.4 over 1h and 5m")
        .contains("2.14% of the 28d budget burns in 1h");
    Map<String, Object> ticket = rules.get(16);
    assertThat(ticket.get("expr").toString()).contains("window=\"3d\"} > 1 and");
    assertThat(rules.get(17 + 8).get("expr").toString()).endsWith("/ (1 - 0.999)");
  }

  @Test
  void theDocsLines_writeARuleFile(@TempDir Path dir) throws Exception {
    ServiceLevelConfig checkout = CHECKOUT;
    // docs:slo-rules:start
    String rules = SloRules.builder().serviceLevel(checkout).matcher("job", "shop").build().yaml();
    Files.writeString(dir.resolve("ringtail-slo.rules.yml"), rules); // Prometheus's rule_files
    // docs:slo-rules:end
    assertThat(rulesOf(Files.readString(dir.resolve("ringtail-slo.rules.yml")), 0)).hasSize(34);
  }

  @Test
  void namesThatLookLikeOtherYamlTypes_orHoldQuotes_stayStrings() {
    ServiceLevelConfig odd =
        ServiceLevelConfig.builder("yes")
            .availability("12", 0.999)
            .latency("a \"quoted\" \\ name: # not a comment", Duration.ofSeconds(1), 0.99)
            .alerts(List.of())
            .build();
    String yaml =
        SloRules.builder()
            .serviceLevel(odd)
            .evaluationInterval(Duration.ofSeconds(30))
            .build()
            .yaml();
    List<Map<String, Object>> rules = rulesOf(yaml, 0);

    assertThat(rules.get(0).get("labels"))
        .isEqualTo(Map.of("slo", "yes", "objective", "12", "window", "30d"));
    assertThat(rules.get(4).get("labels"))
        .isEqualTo(
            Map.of(
                "slo",
                "yes",
                "objective",
                "a \"quoted\" \\ name: # not a comment",
                "window",
                "30d"));
    assertThat(rules.get(4).get("expr").toString())
        .contains("objective=\"a \\\"quoted\\\" \\\\ name: # not a comment\"");
    assertThat(yaml).contains("interval: 30s");
  }

  @Test
  void severalServiceLevels_areOneGroupEach() {
    ServiceLevelConfig search =
        ServiceLevelConfig.builder("search")
            .availability("available", 0.99)
            .alerts(List.of())
            .build();
    String yaml = SloRules.of(CHECKOUT, search).yaml();
    assertThat(rulesOf(yaml, 1)).hasSize(4);
    assertThat(yaml).contains("name: ringtail-slo-checkout").contains("name: ringtail-slo-search");
  }

  @Test
  void build_refusesWhatPrometheusWouldNot() {
    assertThatThrownBy(() -> SloRules.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no service level: add one with serviceLevel(config)");
    assertThatThrownBy(() -> SloRules.of(CHECKOUT, CHECKOUT))
        .hasMessage("service level name must be unique among the rules, but was \"checkout\"");
    for (String label : new String[] {"", "1a", "a-b", "__name__"}) {
      assertThatThrownBy(
              () -> SloRules.builder().serviceLevel(CHECKOUT).matcher(label, "x").build())
          .hasMessage("label must be a Prometheus label name, but was \"" + label + "\"");
    }
    assertThatThrownBy(
            () -> SloRules.builder().serviceLevel(CHECKOUT).matcher("window", "x").build())
        .hasMessageStartingWith("label must be none of slo, objective and window");
    assertThatThrownBy(
            () ->
                SloRules.builder().serviceLevel(CHECKOUT).evaluationInterval(Duration.ZERO).build())
        .hasMessage("interval must be positive, but was PT0S");
    assertThatThrownBy(
            () ->
                SloRules.builder()
                    .serviceLevel(CHECKOUT)
                    .evaluationInterval(Duration.ofNanos(1_500_000))
                    .build())
        .hasMessage("interval must be a whole number of milliseconds, but was PT0.0015S");
    assertThatThrownBy(
            () -> SloRules.builder().serviceLevel(CHECKOUT).evaluationInterval(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("interval");
    assertThatThrownBy(() -> SloRules.builder().serviceLevel(null)).hasMessage("config");
  }

  @Test
  void factors_andTargets_areWrittenAsPlainDecimals() {
    ServiceLevelConfig tiny =
        ServiceLevelConfig.builder("tiny")
            .availability("available", 0.99999)
            .alerts(BurnRateAlert.page(14.4, Duration.ofHours(1), Duration.ofMinutes(5)))
            .build();
    String yaml = SloRules.of(tiny).yaml();
    assertThat(yaml).contains("/ (1 - 0.99999)").doesNotContain("E-");
  }
}
