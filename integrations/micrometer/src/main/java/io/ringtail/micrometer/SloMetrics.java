package io.ringtail.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.WindowConventions;
import io.ringtail.internal.Checks;
import io.ringtail.slo.AlertStatus;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import io.ringtail.slo.SloConventions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds a {@link ServiceLevel} to a Micrometer {@link MeterRegistry}: per objective, gauges of
 * where it stands and the monotonic counters a Prometheus server computes the same SLIs from. Every
 * meter is tagged {@code slo=<name>}, {@code objective=<name>} and the user's tags; names are those
 * of {@link SloConventions} (Prometheus names in parentheses):
 *
 * <ul>
 *   <li>{@code ringtail.slo.events} ({@code ringtail_slo_events_total}) and {@code
 *       ringtail.slo.good.events} ({@code ringtail_slo_good_events_total}): counters of the events
 *       this process recorded since the service level was created, and of those that met the
 *       objective, exact at its threshold;
 *   <li>{@code ringtail.slo.sli} ({@code ringtail_slo_sli}): the SLI over the period, NaN without
 *       events; {@code ringtail.slo.target} ({@code ringtail_slo_target}): the objective's target;
 *   <li>{@code ringtail.slo.budget.remaining} ({@code ringtail_slo_budget_remaining}): the error
 *       budget left over the period, 1 untouched, below 0 overspent;
 *   <li>{@code ringtail.slo.burn.rate} ({@code ringtail_slo_burn_rate}), tagged {@code window}
 *       ({@code 5m}, {@code 1h}, ..., the period too): the burn rate over each window, NaN without
 *       events;
 *   <li>{@code ringtail.slo.alert.firing} ({@code ringtail_slo_alert_firing}), tagged {@code alert}
 *       ({@code page-1h}) and {@code severity}: 1 while the alert's condition holds, else 0.
 * </ul>
 *
 * <p>One scrape, one status: all meters of a service level read the same {@link
 * ServiceLevelStatus}, taken once per scrape, so the counters, the SLI and the burn rates of a
 * scrape agree. A service level whose status throws reads NaN for that scrape and is logged as
 * {@link WindowConventions} says. Gauges hold the service level strongly.
 *
 * <p>Immutable and thread-safe; binding may be repeated on several registries.
 */
public final class SloMetrics implements MeterBinder {
  private final ServiceLevel serviceLevel;
  private final Tags tags;

  private SloMetrics(ServiceLevel serviceLevel, Tags tags) {
    this.serviceLevel = serviceLevel;
    this.tags = tags;
  }

  /**
   * A binder of {@code serviceLevel}'s meters.
   *
   * @param tags extra tags as key-value pairs
   * @throws IllegalArgumentException if the tags are an odd number of strings
   */
  public static SloMetrics of(ServiceLevel serviceLevel, String... tags) {
    Checks.requireNonNull("serviceLevel", serviceLevel);
    return new SloMetrics(serviceLevel, SpecBuilder.keyValueTags(tags));
  }

  /** Binds {@code serviceLevel}'s meters and returns it. */
  public static <S extends ServiceLevel> S monitor(
      MeterRegistry registry, S serviceLevel, String... tags) {
    of(serviceLevel, tags).bindTo(registry);
    return serviceLevel;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Checks.requireNonNull("registry", registry);
    ServiceLevelConfig config = serviceLevel.config();
    int perObjective = 5 + config.windows().size() + config.alerts().size();
    ScrapeSnapshot<ServiceLevelStatus> scrape =
        new ScrapeSnapshot<>(
            serviceLevel::status,
            serviceLevel.timeSource(),
            perObjective * config.objectives().size(),
            TimeUnit.SECONDS.toNanos(1),
            config.name(),
            "service level \"" + config.name() + "\"",
            WindowConventions.defaults().failures());
    int index = 0;
    for (int o = 0; o < config.objectives().size(); o++) {
      int objective = o;
      String name = config.objectives().get(o).name();
      Tags all =
          Tags.of(SloConventions.SLO_TAG, config.name(), SloConventions.OBJECTIVE_TAG, name)
              .and(tags);
      counter(
          registry,
          scrape,
          index++,
          SloConventions.EVENTS,
          all,
          "Events recorded since the service level was created",
          s -> s.objectives().get(objective).recorded().total());
      counter(
          registry,
          scrape,
          index++,
          SloConventions.GOOD_EVENTS,
          all,
          "Events recorded since the service level was created that met the objective",
          s -> s.objectives().get(objective).recorded().good());
      gauge(
          registry,
          scrape,
          index++,
          SloConventions.SLI,
          all,
          "Fraction of events that met the objective over the compliance period; NaN without"
              + " events",
          s -> s.objectives().get(objective).sli());
      gauge(
          registry,
          scrape,
          index++,
          SloConventions.TARGET,
          all,
          "Fraction of events the objective requires to be good",
          s -> s.objectives().get(objective).objective().target());
      gauge(
          registry,
          scrape,
          index++,
          SloConventions.BUDGET_REMAINING,
          all,
          "Error budget left over the compliance period: 1 untouched, 0 spent, below 0"
              + " overspent",
          s -> s.objectives().get(objective).budgetRemaining());
      for (Duration window : config.windows()) {
        gauge(
            registry,
            scrape,
            index++,
            SloConventions.BURN_RATE,
            all.and(SloConventions.WINDOW_TAG, SloConventions.windowLabel(window)),
            "Error ratio over the window divided by the error budget (1 - target); NaN without"
                + " events",
            s -> s.objectives().get(objective).burnRate(window));
      }
      for (int a = 0; a < config.alerts().size(); a++) {
        int alert = a;
        BurnRateAlert burnAlert = config.alerts().get(a);
        gauge(
            registry,
            scrape,
            index++,
            SloConventions.ALERT_FIRING,
            all.and(
                Tags.of(
                    Tag.of(SloConventions.ALERT_TAG, burnAlert.name()),
                    Tag.of(SloConventions.SEVERITY_TAG, burnAlert.severity().label()))),
            "1 while the burn rate is above the alert's factor over its long and short windows,"
                + " else 0",
            s -> firing(s.objectives().get(objective), alert));
      }
    }
  }

  private static double firing(ObjectiveStatus status, int alert) {
    AlertStatus a = status.alerts().get(alert);
    return a.firing() ? 1 : 0;
  }

  /**
   * A counter of the status; function counters hold their object weakly, and the scrape snapshot
   * stays reachable through the gauges, which hold it strongly.
   */
  private static void counter(
      MeterRegistry registry,
      ScrapeSnapshot<ServiceLevelStatus> scrape,
      int index,
      String name,
      Tags tags,
      String description,
      ToDoubleFunction<ServiceLevelStatus> value) {
    FunctionCounter.builder(name, scrape, sc -> sc.read(index, value))
        .tags(tags)
        .description(description)
        .register(registry);
  }

  private static void gauge(
      MeterRegistry registry,
      ScrapeSnapshot<ServiceLevelStatus> scrape,
      int index,
      String name,
      Tags tags,
      String description,
      ToDoubleFunction<ServiceLevelStatus> value) {
    Gauge.builder(name, scrape, sc -> sc.read(index, value))
        .tags(tags)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  @Override
  public String toString() {
    return "SloMetrics[" + serviceLevel.config().name() + ", tags=" + tags + "]";
  }
}
