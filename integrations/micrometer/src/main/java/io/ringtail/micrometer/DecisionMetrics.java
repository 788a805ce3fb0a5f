package io.ringtail.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.DecisionCounts;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.internal.Checks;
import java.util.function.ToDoubleFunction;

/**
 * Binds the {@link DecisionCounts} of a rate limiter, sum cap or threshold detector (in-process or
 * in Redis) to a Micrometer {@link MeterRegistry} as counters, each tagged {@code decision=<name>},
 * {@code type} ({@code rate_limiter}, {@code sum_cap} or {@code threshold_detector}) and the user's
 * tags:
 *
 * <ul>
 *   <li>{@code ringtail.decisions}, tagged {@code outcome}: {@code allowed} and {@code denied} for
 *       a limiter or a cap, {@code fired} and {@code not_fired} for a detector ({@code
 *       ringtail_decisions_total} in Prometheus);
 *   <li>{@code ringtail.decisions.answered}, tagged {@code by}: {@code local} (a Redis limiter's
 *       held denials, answered without a Redis call) and {@code outage_policy} (answered by the
 *       outage policy because Redis could not); 0 for in-process decisions.
 * </ul>
 *
 * Immutable and thread-safe.
 */
public final class DecisionMetrics implements MeterBinder {
  private final CountsDecisions decision;
  private final String name;
  private final String type;
  private final Tags tags;

  private DecisionMetrics(CountsDecisions decision, String name, String type, Tags tags) {
    this.decision = decision;
    this.name = name;
    this.type = type;
    this.tags = tags;
  }

  /**
   * A binder of {@code decision}'s counts under {@code name}.
   *
   * @param tags extra tags as key-value pairs
   * @throws IllegalArgumentException if the decision is not a RateLimiter, SumCap or
   *     ThresholdDetector, or the name is blank
   */
  public static DecisionMetrics of(CountsDecisions decision, String name, String... tags) {
    Checks.requireNonNull("decision", decision);
    Checks.requireNonBlank("name", name);
    Checks.requireNonNull("tags", tags);
    return new DecisionMetrics(decision, name, typeOf(decision), Tags.of(tags));
  }

  /** Binds {@code decision}'s counts under {@code name} and returns the binder. */
  public static DecisionMetrics monitor(
      MeterRegistry registry, CountsDecisions decision, String name, String... tags) {
    DecisionMetrics metrics = of(decision, name, tags);
    metrics.bindTo(registry);
    return metrics;
  }

  private static String typeOf(CountsDecisions decision) {
    if (decision instanceof RateLimiter) {
      return "rate_limiter";
    }
    if (decision instanceof SumCap) {
      return "sum_cap";
    }
    if (decision instanceof ThresholdDetector) {
      return "threshold_detector";
    }
    throw Checks.invalid("decision", "a RateLimiter, SumCap or ThresholdDetector", decision);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Checks.requireNonNull("registry", registry);
    boolean detector = type.equals("threshold_detector");
    Tags all = Tags.of("decision", name, "type", type).and(tags);
    counter(
        registry,
        "ringtail.decisions",
        all.and("outcome", detector ? "not_fired" : "allowed"),
        "Decisions that admitted (limiter, cap) or did not fire (detector)",
        DecisionCounts::allowed);
    counter(
        registry,
        "ringtail.decisions",
        all.and("outcome", detector ? "fired" : "denied"),
        "Decisions that denied (limiter, cap) or fired (detector)",
        DecisionCounts::denied);
    counter(
        registry,
        "ringtail.decisions.answered",
        all.and("by", "local"),
        "Decisions of a fleet-wide decision answered from this process's memory",
        DecisionCounts::answeredLocally);
    counter(
        registry,
        "ringtail.decisions.answered",
        all.and("by", "outage_policy"),
        "Decisions answered by the outage policy because Redis could not answer",
        DecisionCounts::answeredByPolicy);
  }

  private void counter(
      MeterRegistry registry,
      String meter,
      Tags meterTags,
      String description,
      ToDoubleFunction<DecisionCounts> count) {
    FunctionCounter.builder(meter, decision, d -> count.applyAsDouble(d.decisionCounts()))
        .tags(meterTags)
        .description(description)
        .register(registry);
  }

  @Override
  public String toString() {
    return "DecisionMetrics[decision=" + name + ", type=" + type + ", tags=" + tags + "]";
  }
}
