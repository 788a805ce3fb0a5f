package io.ringtail.prometheus;

import io.ringtail.internal.Checks;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.SloConventions;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Prometheus recording and alerting rules equivalent to service levels, generated from their {@link
 * ServiceLevelConfig}s (as Sloth and Pyrra generate them from their specifications), reading the
 * exact good and total counters the Micrometer binding exports ({@code ringtail_slo_events_total}
 * and {@code ringtail_slo_good_events_total}, summed over every process that exports them). So a
 * team that keeps its SLOs in its own Prometheus gets the same SLIs, burn rates and alerts as
 * Ringtail computes in the process.
 *
 * <p>One rule group per service level, named {@code ringtail-slo-<name>}; per objective (series
 * labelled {@code slo}, {@code objective} and, where per window, {@code window}):
 *
 * <ul>
 *   <li>{@code ringtail_slo:error_ratio:rate}, per window of the config (the period and every alert
 *       window): {@code (total - good) / total} of the counters' rates over the window;
 *   <li>{@code ringtail_slo:burn_rate:rate}, per window: the error ratio divided by {@code 1 -
 *       target};
 *   <li>{@code ringtail_slo:sli} and {@code ringtail_slo:budget_remaining}, over the period;
 *   <li>an alert {@value #ALERT} per {@link BurnRateAlert}, firing while the burn rate is above its
 *       factor over both its windows, labelled {@code severity} ({@code page} or {@code ticket}),
 *       {@code alert} ({@code page-1h}), {@code long_window} and {@code short_window}.
 * </ul>
 *
 * Where Ringtail's windows are bucket-aligned and counted exactly, Prometheus's {@code rate()}
 * covers the samples scraped within the range and extrapolates: see the Prometheus page of the SLO
 * docs for how far the two may differ. Without events in a window Prometheus has no series (0/0)
 * where Ringtail reads NaN, and a whole budget.
 *
 * <p>Immutable and thread-safe.
 */
public final class SloRules {
  /** The name of every generated alert: {@value}. */
  public static final String ALERT = "RingtailErrorBudgetBurn";

  /** Recorded error ratio per window: {@value}. */
  public static final String ERROR_RATIO = "ringtail_slo:error_ratio:rate";

  /** Recorded burn rate per window: {@value}. */
  public static final String BURN_RATE = "ringtail_slo:burn_rate:rate";

  /** Recorded SLI over the period: {@value}. */
  public static final String SLI = "ringtail_slo:sli";

  /** Recorded budget remaining over the period: {@value}. */
  public static final String BUDGET_REMAINING = "ringtail_slo:budget_remaining";

  private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private final List<ServiceLevelConfig> serviceLevels;
  private final Map<String, String> matchers;
  private final Duration interval;

  private SloRules(Builder b) {
    this.serviceLevels = List.copyOf(b.serviceLevels);
    this.matchers = Map.copyOf(b.matchers);
    this.interval = b.interval;
  }

  /** A builder; add at least one service level. */
  public static Builder builder() {
    return new Builder();
  }

  /** The rules of {@code serviceLevels} with Prometheus's default evaluation interval. */
  public static SloRules of(ServiceLevelConfig... serviceLevels) {
    Builder b = builder();
    for (ServiceLevelConfig c : Checks.requireNonNull("serviceLevels", serviceLevels)) {
      b.serviceLevel(c);
    }
    return b.build();
  }

  /** The rule file, as Prometheus's {@code rule_files} read it. */
  public String yaml() {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndent(2);
    options.setIndicatorIndent(2);
    options.setIndentWithIndicator(true);
    options.setSplitLines(false);
    return new Yaml(options).dump(document());
  }

  /** The rule file as nested maps and lists, as {@link #yaml()} writes it. */
  Map<String, Object> document() {
    List<Object> groups = new ArrayList<>();
    for (ServiceLevelConfig config : serviceLevels) {
      groups.add(group(config));
    }
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("groups", groups);
    return root;
  }

  private Map<String, Object> group(ServiceLevelConfig config) {
    List<Object> rules = new ArrayList<>();
    for (Objective o : config.objectives()) {
      String base = selector(config, o, null);
      for (Duration w : config.windows()) {
        String range = "[" + SloConventions.windowLabel(w) + "]";
        String total = "sum(rate(ringtail_slo_events_total" + base + range + "))";
        String good = "sum(rate(ringtail_slo_good_events_total" + base + range + "))";
        rules.add(record(ERROR_RATIO, "(" + total + " - " + good + ") / " + total, config, o, w));
      }
      for (Duration w : config.windows()) {
        rules.add(
            record(
                BURN_RATE,
                ERROR_RATIO + selector(config, o, w) + " / (1 - " + number(o.target()) + ")",
                config,
                o,
                w));
      }
      String period = selector(config, o, config.period());
      rules.add(record(SLI, "1 - " + ERROR_RATIO + period, config, o, null));
      rules.add(record(BUDGET_REMAINING, "1 - " + BURN_RATE + period, config, o, null));
      for (BurnRateAlert a : config.alerts()) {
        rules.add(alert(config, o, a));
      }
    }
    Map<String, Object> group = new LinkedHashMap<>();
    group.put("name", "ringtail-slo-" + config.name());
    if (interval != null) {
      group.put("interval", SloConventions.windowLabel(interval));
    }
    group.put("rules", rules);
    return group;
  }

  private Map<String, Object> record(
      String name, String expr, ServiceLevelConfig config, Objective o, Duration window) {
    Map<String, Object> rule = new LinkedHashMap<>();
    rule.put("record", name);
    rule.put("expr", expr);
    rule.put("labels", labels(config, o, window));
    return rule;
  }

  private Map<String, Object> alert(ServiceLevelConfig config, Objective o, BurnRateAlert a) {
    String factor = number(a.factor());
    String expr =
        BURN_RATE
            + selector(config, o, a.longWindow())
            + " > "
            + factor
            + " and ignoring (window) "
            + BURN_RATE
            + selector(config, o, a.shortWindow())
            + " > "
            + factor;
    Map<String, Object> labels = labels(config, o, null);
    labels.put("severity", a.severity().label());
    labels.put(SloConventions.ALERT_TAG, a.name());
    labels.put("long_window", SloConventions.windowLabel(a.longWindow()));
    labels.put("short_window", SloConventions.windowLabel(a.shortWindow()));
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put(
        "summary", config.name() + " " + o.name() + ": error budget burning above " + factor + "x");
    annotations.put(
        "description",
        "The burn rate of objective "
            + o.name()
            + " of "
            + config.name()
            + " has been above "
            + factor
            + " over "
            + SloConventions.windowLabel(a.longWindow())
            + " and "
            + SloConventions.windowLabel(a.shortWindow())
            + ": at that rate "
            + percent(a.budgetConsumed(config.period()))
            + " of the "
            + SloConventions.windowLabel(config.period())
            + " budget burns in "
            + SloConventions.windowLabel(a.longWindow())
            + ".");
    Map<String, Object> rule = new LinkedHashMap<>();
    rule.put("alert", ALERT);
    rule.put("expr", expr);
    rule.put("labels", labels);
    rule.put("annotations", annotations);
    return rule;
  }

  private static Map<String, Object> labels(
      ServiceLevelConfig config, Objective o, Duration window) {
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put(SloConventions.SLO_TAG, config.name());
    labels.put(SloConventions.OBJECTIVE_TAG, o.name());
    if (window != null) {
      labels.put(SloConventions.WINDOW_TAG, SloConventions.windowLabel(window));
    }
    return labels;
  }

  /** {@code {slo="...",objective="..."[,window="..."]}} plus the extra matchers. */
  private String selector(ServiceLevelConfig config, Objective o, Duration window) {
    StringBuilder s = new StringBuilder("{");
    s.append(SloConventions.SLO_TAG).append("=").append(quote(config.name()));
    s.append(",").append(SloConventions.OBJECTIVE_TAG).append("=").append(quote(o.name()));
    if (window != null) {
      s.append(",")
          .append(SloConventions.WINDOW_TAG)
          .append("=")
          .append(quote(SloConventions.windowLabel(window)));
    } else {
      matchers.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(m -> s.append(",").append(m.getKey()).append("=").append(quote(m.getValue())));
    }
    return s.append("}").toString();
  }

  /** A PromQL string literal. */
  private static String quote(String value) {
    StringBuilder s = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> s.append("\\\\");
        case '"' -> s.append("\\\"");
        case '\n' -> s.append("\\n");
        default -> s.append(c);
      }
    }
    return s.append('"').toString();
  }

  /** A PromQL number literal: the double's shortest decimal, never in exponent form. */
  private static String number(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  private static String percent(double fraction) {
    return number(Math.round(fraction * 10_000) / 100.0) + "%";
  }

  @Override
  public String toString() {
    return "SloRules"
        + serviceLevels.stream().map(ServiceLevelConfig::name).toList()
        + (matchers.isEmpty() ? "" : " " + matchers);
  }

  /** Fluent builder of {@link SloRules}; reusable, not thread-safe. */
  public static final class Builder {
    private final List<ServiceLevelConfig> serviceLevels = new ArrayList<>();
    private final Map<String, String> matchers = new LinkedHashMap<>();
    private Duration interval;
    private boolean intervalSet;

    private Builder() {}

    /** Adds a service level's rules, as one group. */
    public Builder serviceLevel(ServiceLevelConfig config) {
      serviceLevels.add(Checks.requireNonNull("config", config));
      return this;
    }

    /**
     * Reads only the counters whose {@code label} equals {@code value} ({@code job="checkout"}),
     * besides {@code slo} and {@code objective}.
     */
    public Builder matcher(String label, String value) {
      matchers.put(Checks.requireNonNull("label", label), Checks.requireNonNull("value", value));
      return this;
    }

    /** How often Prometheus evaluates the groups; the server's global interval unless set. */
    public Builder evaluationInterval(Duration interval) {
      this.interval = interval;
      this.intervalSet = true;
      return this;
    }

    /**
     * Validates and returns the rules.
     *
     * @throws IllegalArgumentException if no service level was added, two share a name, a matcher's
     *     label is not a Prometheus label name or one the rules set, or the interval is not a
     *     positive whole number of milliseconds
     */
    public SloRules build() {
      if (serviceLevels.isEmpty()) {
        throw Checks.invalidConfiguration("no service level: add one with serviceLevel(config)");
      }
      List<String> names = new ArrayList<>();
      for (ServiceLevelConfig c : serviceLevels) {
        if (names.contains(c.name())) {
          throw Checks.invalid("service level name", "unique among the rules", c.name());
        }
        names.add(c.name());
      }
      for (String label : matchers.keySet()) {
        if (!LABEL.matcher(label).matches() || label.startsWith("__")) {
          throw Checks.invalid("label", "a Prometheus label name", label);
        }
        if (List.of(SloConventions.SLO_TAG, SloConventions.OBJECTIVE_TAG, SloConventions.WINDOW_TAG)
            .contains(label)) {
          throw Checks.invalid(
              "label", "none of slo, objective and window (the rules set them)", label);
        }
      }
      if (intervalSet) {
        long nanos = Checks.requirePositiveNanos("interval", interval);
        if (nanos % 1_000_000 != 0) {
          throw Checks.invalid("interval", "a whole number of milliseconds", interval);
        }
      }
      return new SloRules(this);
    }
  }
}
