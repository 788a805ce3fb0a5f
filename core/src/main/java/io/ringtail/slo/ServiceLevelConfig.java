package io.ringtail.slo;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The immutable definition of a service level: its name, one or more {@link Objective}s that every
 * recorded event is judged against, the rolling compliance {@link #period()} over which the error
 * budget is counted, and the {@link BurnRateAlert}s watching how fast it burns. The same definition
 * drives the in-process {@link ServiceLevel}, its meters and the Prometheus rules generated from
 * it.
 *
 * <p>Defaults: a period of 30 days and the workbook's alerts ({@link BurnRateAlert#workbook()}).
 * Built fluently; {@link Builder#build()} validates and may be called again. Immutable and
 * thread-safe.
 */
public final class ServiceLevelConfig {
  /** The compliance period unless set: {@value #DEFAULT_PERIOD_DAYS} days. */
  public static final int DEFAULT_PERIOD_DAYS = 30;

  /** The most objectives in one service level: {@value}. */
  public static final int MAX_OBJECTIVES = 16;

  /** The most burn-rate alerts in one service level: {@value}. */
  public static final int MAX_ALERTS = 8;

  private final String name;
  private final List<Objective> objectives;
  private final Duration period;
  private final List<BurnRateAlert> alerts;
  private final List<Duration> windows;

  private ServiceLevelConfig(Builder b) {
    this.name = b.name;
    this.objectives = List.copyOf(b.objectives);
    this.period = b.period;
    this.alerts = List.copyOf(b.alerts);
    TreeSet<Duration> all = new TreeSet<>();
    all.add(period);
    for (BurnRateAlert a : alerts) {
      all.add(a.shortWindow());
      all.add(a.longWindow());
    }
    this.windows = List.copyOf(all);
  }

  /**
   * A builder of the service level named {@code name} (the {@code slo} label of its meters).
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public static Builder builder(String name) {
    return new Builder(Checks.requireNonBlank("name", name));
  }

  /** The service level's name. */
  public String name() {
    return name;
  }

  /** The objectives, in the order added. */
  public List<Objective> objectives() {
    return objectives;
  }

  /** The objective of this name, if any. */
  public Optional<Objective> objective(String name) {
    return objectives.stream().filter(o -> o.name().equals(name)).findFirst();
  }

  /** The rolling compliance period: the budget and the SLI are counted over it. */
  public Duration period() {
    return period;
  }

  /** The burn-rate alerts, in the order set. */
  public List<BurnRateAlert> alerts() {
    return alerts;
  }

  /**
   * Every window a status needs counts for, shortest first, without repeats: the period and each
   * alert's long and short windows.
   */
  public List<Duration> windows() {
    return windows;
  }

  @Override
  public String toString() {
    return "ServiceLevelConfig["
        + name
        + ", objectives="
        + objectives
        + ", period="
        + SloConventions.windowLabel(period)
        + ", alerts="
        + alerts.stream().map(BurnRateAlert::name).toList()
        + "]";
  }

  /**
   * Fluent builder of a {@link ServiceLevelConfig}; reusable, not thread-safe. Its setters store;
   * {@link #build()} checks (the objectives and alerts it is given were checked when made).
   */
  public static final class Builder {
    private final String name;
    private final List<Objective> objectives = new ArrayList<>();
    private Duration period = Duration.ofDays(DEFAULT_PERIOD_DAYS);
    private List<BurnRateAlert> alerts = BurnRateAlert.workbook();

    private Builder(String name) {
      this.name = name;
    }

    /** Adds an objective. */
    public Builder objective(Objective objective) {
      objectives.add(Checks.requireNonNull("objective", objective));
      return this;
    }

    /**
     * Adds {@link Objective#latency}{@code (name, threshold, target)}: a fraction {@code target} of
     * events at most {@code threshold}.
     */
    public Builder latency(String name, Duration threshold, double target) {
      return objective(Objective.latency(name, threshold, target));
    }

    /**
     * Adds {@link Objective#availability}{@code (name, target)}: a fraction {@code target} of
     * events not failed.
     */
    public Builder availability(String name, double target) {
      return objective(Objective.availability(name, target));
    }

    /** The rolling compliance period; 30 days unless set. */
    public Builder period(Duration period) {
      this.period = period;
      return this;
    }

    /** The burn-rate alerts, replacing the workbook's; none is allowed. */
    public Builder alerts(List<BurnRateAlert> alerts) {
      this.alerts = List.copyOf(Checks.requireNonNull("alerts", alerts));
      return this;
    }

    /** The burn-rate alerts, replacing the workbook's. */
    public Builder alerts(BurnRateAlert... alerts) {
      return alerts(Arrays.asList(Checks.requireNonNull("alerts", alerts)));
    }

    /**
     * Validates and returns the configuration.
     *
     * @throws IllegalArgumentException naming the field: no objective or more than {@value
     *     #MAX_OBJECTIVES}, two objectives or alerts of one name, more than {@value #MAX_ALERTS}
     *     alerts, a period that is not a positive whole number of milliseconds or is shorter than
     *     an alert's long window, or an alert factor an objective's burn rate cannot exceed ({@code
     *     1 / (1 - target)}, every event bad)
     */
    public ServiceLevelConfig build() {
      if (objectives.isEmpty()) {
        throw Checks.invalidConfiguration(
            "service level \""
                + name
                + "\" has no objective: add one with latency(...), availability(...) or"
                + " objective(...)");
      }
      if (objectives.size() > MAX_OBJECTIVES) {
        throw Checks.invalid("objectives", "at most " + MAX_OBJECTIVES, objectives.size());
      }
      Set<String> names = new HashSet<>();
      for (Objective o : objectives) {
        if (!names.add(o.name())) {
          throw Checks.invalid("objective name", "unique in a service level", o.name());
        }
      }
      long periodNanos = Checks.requirePositiveNanos("period", period);
      if (periodNanos % 1_000_000 != 0) {
        throw Checks.invalid("period", "a whole number of milliseconds", period);
      }
      if (alerts.size() > MAX_ALERTS) {
        throw Checks.invalid("alerts", "at most " + MAX_ALERTS, alerts.size());
      }
      Set<String> alertNames = new HashSet<>();
      for (BurnRateAlert a : alerts) {
        if (!alertNames.add(a.name())) {
          throw Checks.invalid("alert name", "unique in a service level", a.name());
        }
        if (a.longWindow().compareTo(period) > 0) {
          throw Checks.invalid(
              "period", "at least alert " + a.name() + "'s longWindow " + a.longWindow(), period);
        }
        for (Objective o : objectives) {
          double highest = 1.0 / o.budget();
          if (!(a.factor() < highest)) {
            throw Checks.invalid(
                "alerts[" + a.name() + "].factor",
                "below "
                    + highest
                    + ", the highest burn rate of objective \""
                    + o.name()
                    + "\" (1 / (1 - target), every event bad)",
                a.factor());
          }
        }
      }
      return new ServiceLevelConfig(this);
    }
  }
}
