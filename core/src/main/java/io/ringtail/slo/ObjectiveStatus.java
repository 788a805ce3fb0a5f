package io.ringtail.slo;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one objective stands, computed from its {@link EventCounts} over the period and over each
 * alert window: the SLI and the error budget left over the period, the burn rate over every window,
 * and each alert's condition. {@link #of} computes it from counts of any origin (one process, or
 * several merged), so every store yields the same figures from the same counts.
 *
 * <p>Definitions, over a window's counts: SLI {@code good / total}; burn rate {@code (bad / total)
 * / (1 - target)} (1 spends the budget exactly over the period); budget remaining {@code 1 - burn
 * rate over the period} (1 untouched, 0 spent, below 0 overspent). Without events the SLI and the
 * burn rates are NaN, no alert fires, and the budget remaining is 1: nothing was spent.
 *
 * <p>Immutable and thread-safe.
 */
public final class ObjectiveStatus {
  private final Objective objective;
  private final Duration period;
  private final Map<Duration, EventCounts> windows;
  private final EventCounts recorded;
  private final List<AlertStatus> alerts;

  private ObjectiveStatus(
      Objective objective,
      Duration period,
      Map<Duration, EventCounts> windows,
      EventCounts recorded,
      List<AlertStatus> alerts) {
    this.objective = objective;
    this.period = period;
    this.windows = windows;
    this.recorded = recorded;
    this.alerts = alerts;
  }

  /**
   * The status of {@code objective} of {@code config} from its counts over every window of {@link
   * ServiceLevelConfig#windows()}.
   *
   * @param windows the counts by window; must hold every window of the config (others are ignored)
   * @param recorded the events recorded since counting began, for monotonic counters
   * @throws IllegalArgumentException if the objective is not the config's or a window is missing
   */
  public static ObjectiveStatus of(
      ServiceLevelConfig config,
      Objective objective,
      Map<Duration, EventCounts> windows,
      EventCounts recorded) {
    Checks.requireNonNull("config", config);
    Checks.requireNonNull("objective", objective);
    Checks.requireNonNull("windows", windows);
    Checks.requireNonNull("recorded", recorded);
    if (!config.objectives().contains(objective)) {
      throw Checks.invalid("objective", "one of service level " + config.name(), objective);
    }
    Map<Duration, EventCounts> counts = new LinkedHashMap<>();
    for (Duration w : config.windows()) {
      EventCounts c = windows.get(w);
      if (c == null) {
        throw Checks.invalid("windows", "counts for every window, " + w + " included", windows);
      }
      counts.put(w, c);
    }
    List<AlertStatus> alerts = new ArrayList<>(config.alerts().size());
    for (BurnRateAlert a : config.alerts()) {
      alerts.add(
          new AlertStatus(
              a,
              burnRate(objective, counts.get(a.longWindow())),
              burnRate(objective, counts.get(a.shortWindow()))));
    }
    return new ObjectiveStatus(
        objective, config.period(), Map.copyOf(counts), recorded, List.copyOf(alerts));
  }

  private static double burnRate(Objective objective, EventCounts counts) {
    return counts.errorRatio() / objective.budget();
  }

  /** The objective. */
  public Objective objective() {
    return objective;
  }

  /**
   * The counts over {@code window}, one of the config's windows.
   *
   * @throws IllegalArgumentException if it is not
   */
  public EventCounts counts(Duration window) {
    EventCounts c = windows.get(Checks.requireNonNull("window", window));
    if (c == null) {
      throw Checks.invalid("window", "one of the service level's windows", window);
    }
    return c;
  }

  /** The counts over the compliance period. */
  public EventCounts periodCounts() {
    return windows.get(period);
  }

  /** The SLI over the period, {@code good / total}; NaN without events. */
  public double sli() {
    return periodCounts().ratio();
  }

  /**
   * The error budget left over the period, {@code 1 - (bad / total) / (1 - target)}: 1 untouched
   * (also without events), 0 spent, below 0 overspent.
   */
  public double budgetRemaining() {
    EventCounts c = periodCounts();
    return c.total() == 0 ? 1.0 : 1.0 - burnRate(objective, c);
  }

  /**
   * The burn rate over {@code window}, one of the config's windows: {@code (bad / total) / (1 -
   * target)}; NaN without events.
   *
   * @throws IllegalArgumentException if it is not one of them
   */
  public double burnRate(Duration window) {
    return burnRate(objective, counts(window));
  }

  /** The burn rate over every window of the config, shortest window first. */
  public Map<Duration, Double> burnRates() {
    Map<Duration, Double> rates = new LinkedHashMap<>();
    windows.keySet().stream()
        .sorted()
        .forEach(w -> rates.put(w, burnRate(objective, windows.get(w))));
    return rates;
  }

  /** Every alert's status, in the config's order. */
  public List<AlertStatus> alerts() {
    return alerts;
  }

  /** The alerts whose condition holds. */
  public List<AlertStatus> firing() {
    return alerts.stream().filter(AlertStatus::firing).toList();
  }

  /** The events recorded since counting began (a process's start), good and total. */
  public EventCounts recorded() {
    return recorded;
  }

  @Override
  public String toString() {
    return "ObjectiveStatus["
        + objective.name()
        + ": sli="
        + sli()
        + ", budgetRemaining="
        + budgetRemaining()
        + ", period="
        + periodCounts()
        + ", firing="
        + firing().stream().map(a -> a.alert().name()).toList()
        + "]";
  }
}
