package io.ringtail.spring.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisHistogramWindowStats;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.RedisWindowStats;
import io.ringtail.spring.ObservedWindows;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Meters of the {@link RedisBackend} and its fleet windows:
 *
 * <ul>
 *   <li>{@code ringtail.redis.breaker.state} (tag {@code state}: 1 for the breaker's state, 0 for
 *       the others), {@code ringtail.redis.calls.failed} and {@code ringtail.redis.calls.refused}
 *       (calls the open breaker refused);
 *   <li>{@code ringtail.redis.decisions.local} and {@code ringtail.redis.decisions.outage_policy}
 *       (every decision of the backend answered without Redis), {@code
 *       ringtail.redis.events.buffered}, {@code .replayed}, {@code .dropped} (threshold events kept
 *       through an outage);
 *   <li>per fleet histogram window (tag {@code window}: a {@link RedisHistogramWindow} or {@link
 *       RedisKeyedHistogramWindows} bean's name, or the observation a fleet observation window
 *       times): {@code ringtail.redis.publication.samples} (tag {@code outcome}: published,
 *       expired, dropped), {@code ringtail.redis.publication.calls} (tag {@code result}: ok,
 *       failed) and {@code ringtail.redis.publication.pending};
 *   <li>per {@link RedisRollingWindow} bean: {@code ringtail.redis.window.samples} (tag {@code
 *       outcome}: stored, duplicate, rejected, expired, trimmed, dropped), {@code
 *       ringtail.redis.window.buffered} and {@code ringtail.redis.window.calls.failed}.
 * </ul>
 *
 * Counters are function counters over the backend's own counts: no work on any record path.
 */
public final class RedisBackendMetrics implements MeterBinder {
  private final RedisBackendEvents events;
  private final ListableBeanFactory beans;

  /**
   * Meters of {@code events}' backend and of the fleet windows among {@code beans} (found when
   * bound, under their bean names).
   */
  public RedisBackendMetrics(RedisBackendEvents events, ListableBeanFactory beans) {
    this.events = Objects.requireNonNull(events, "events");
    this.beans = Objects.requireNonNull(beans, "beans");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    RedisBackend backend = events.backend();
    CircuitBreaker breaker = backend.circuitBreaker();
    for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
      Gauge.builder("ringtail.redis.breaker.state", breaker, b -> b.getState() == state ? 1 : 0)
          .tag("state", state.name().toLowerCase(Locale.ROOT))
          .description("1 for the state the Redis backend's circuit breaker is in, 0 otherwise")
          .strongReference(true)
          .register(registry);
    }
    counter(
        registry,
        "ringtail.redis.calls.failed",
        Tags.empty(),
        events,
        e -> e.failedCalls(),
        "Calls to Redis that failed or timed out");
    counter(
        registry,
        "ringtail.redis.calls.refused",
        Tags.empty(),
        events,
        e -> e.refusedCalls(),
        "Calls the open circuit breaker refused without trying Redis");
    counter(
        registry,
        "ringtail.redis.decisions.local",
        Tags.empty(),
        backend,
        b -> b.localDenials(),
        "Rate-limit denials answered from this process's memory");
    counter(
        registry,
        "ringtail.redis.decisions.outage_policy",
        Tags.empty(),
        backend,
        b -> b.outageDecisions(),
        "Decisions answered by the outage policy");
    Gauge.builder(
            "ringtail.redis.events.buffered",
            backend,
            b -> b.decisionOutageStats().eventsBuffered())
        .description("Threshold events waiting to be replayed into Redis")
        .strongReference(true)
        .register(registry);
    counter(
        registry,
        "ringtail.redis.events.replayed",
        Tags.empty(),
        backend,
        b -> b.decisionOutageStats().eventsReplayed(),
        "Threshold events replayed into Redis");
    counter(
        registry,
        "ringtail.redis.events.dropped",
        Tags.empty(),
        backend,
        b -> b.decisionOutageStats().eventsDropped(),
        "Threshold events lost to a full buffer");

    Map<String, RedisHistogramWindow> histogramWindows =
        beans.getBeansOfType(RedisHistogramWindow.class, false, false);
    Map<String, RedisRollingWindow> rawWindows =
        beans.getBeansOfType(RedisRollingWindow.class, false, false);
    histogramWindows.forEach((name, w) -> publication(registry, name, w, w::stats));
    beans
        .getBeansOfType(RedisKeyedHistogramWindows.class, false, false)
        .forEach((name, w) -> publication(registry, name, w, w::stats));
    ObservedWindows observations = beans.getBeanProvider(ObservedWindows.class).getIfUnique();
    if (observations != null) {
      observations
          .windows()
          .forEach(
              (name, w) -> {
                if (w instanceof RedisKeyedHistogramWindows fleet) {
                  publication(registry, name, fleet, fleet::stats);
                }
              });
    }
    rawWindows.forEach(
        (name, w) -> {
          Tags t = Tags.of("window", name);
          rawCounter(registry, t.and("outcome", "stored"), w, RedisWindowStats::stored);
          rawCounter(registry, t.and("outcome", "duplicate"), w, RedisWindowStats::duplicates);
          rawCounter(registry, t.and("outcome", "rejected"), w, RedisWindowStats::rejected);
          rawCounter(registry, t.and("outcome", "expired"), w, RedisWindowStats::expired);
          rawCounter(registry, t.and("outcome", "trimmed"), w, RedisWindowStats::trimmed);
          rawCounter(registry, t.and("outcome", "dropped"), w, RedisWindowStats::dropped);
          Gauge.builder("ringtail.redis.window.buffered", w, x -> x.stats().buffered())
              .tags(t)
              .description("Samples waiting in memory for Redis")
              .strongReference(true)
              .register(registry);
          counter(
              registry,
              "ringtail.redis.window.calls.failed",
              t,
              w,
              x -> x.stats().failedCalls(),
              "Record calls that failed (samples buffered)");
        });
  }

  /** The publication meters of one fleet window, tagged {@code window=name}. */
  private static <T> void publication(
      MeterRegistry registry, String name, T w, Supplier<RedisHistogramWindowStats> stats) {
    Tags t = Tags.of("window", name);
    for (String outcome : List.of("published", "expired", "dropped")) {
      ToDoubleFunction<RedisHistogramWindowStats> stat =
          switch (outcome) {
            case "published" -> RedisHistogramWindowStats::published;
            case "expired" -> RedisHistogramWindowStats::expired;
            default -> RedisHistogramWindowStats::dropped;
          };
      counter(
          registry,
          "ringtail.redis.publication.samples",
          t.and("outcome", outcome),
          w,
          x -> stat.applyAsDouble(stats.get()),
          "Samples of this process's fleet window, by outcome");
    }
    counter(
        registry,
        "ringtail.redis.publication.calls",
        t.and("result", "ok"),
        w,
        x -> stats.get().publishCalls(),
        "Publication calls Redis answered");
    counter(
        registry,
        "ringtail.redis.publication.calls",
        t.and("result", "failed"),
        w,
        x -> stats.get().failedCalls(),
        "Publication calls that failed (deltas kept)");
    Gauge.builder("ringtail.redis.publication.pending", w, x -> stats.get().pendingSamples())
        .tags(t)
        .description("Samples recorded but not yet confirmed by Redis")
        .strongReference(true)
        .register(registry);
  }

  private static void rawCounter(
      MeterRegistry registry,
      Tags tags,
      RedisRollingWindow w,
      ToDoubleFunction<RedisWindowStats> stat) {
    counter(
        registry,
        "ringtail.redis.window.samples",
        tags,
        w,
        x -> stat.applyAsDouble(x.stats()),
        "Samples this process sent to a Redis window, by outcome");
  }

  private static <T> void counter(
      MeterRegistry registry,
      String name,
      Tags tags,
      T source,
      ToDoubleFunction<T> count,
      String description) {
    FunctionCounter.builder(name, source, count)
        .tags(tags)
        .description(description)
        .register(registry);
  }
}
