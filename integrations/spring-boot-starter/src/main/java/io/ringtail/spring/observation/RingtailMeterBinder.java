package io.ringtail.spring.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.micrometer.DecisionMetrics;
import io.ringtail.micrometer.KeyedWindowMetrics;
import io.ringtail.micrometer.WindowMetrics;
import io.ringtail.spring.RingtailProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ClassUtils;

/**
 * Binds every {@link RollingWindow} and {@link KeyedWindows} bean of the context to a {@link
 * MeterRegistry}, each under its bean name as the window name, with {@link WindowMetrics} and
 * {@link KeyedWindowMetrics}: rolling gauges and {@code _total} counters per window (a fleet
 * window, {@code RedisHistogramWindow} or {@code RedisKeyedHistogramWindows}, is exported once for
 * the fleet: this instance's counters under the usual names, the fleet's gauges under {@code
 * ringtail.fleet.window} and {@code ringtail.fleet.keyed} by the instance that merges it); and
 * every {@link RateLimiter}, {@link SumCap} and {@link ThresholdDetector} bean that counts its
 * decisions ({@link CountsDecisions}, as all of Ringtail's do) with {@link DecisionMetrics}.
 *
 * <p>A window the application binds itself (its own {@code MeterBinder}, or any {@code
 * WindowMetrics}/{@code KeyedWindowMetrics} call on the same registry) is left to it, so no window
 * is published twice under two names; so is every bean named in {@code excluded}. To see what the
 * application bound, binding waits until the context has started (every {@code MeterBinder} has run
 * by then); a registry that comes later is bound at once.
 *
 * <p>Define a bean of this type to replace it. Thread-safe; binding runs once per registry.
 */
public final class RingtailMeterBinder implements MeterBinder, SmartLifecycle {
  /** Whether fleet windows can exist: {@code ringtail-redis} is on the class path. */
  private static final boolean FLEET =
      ClassUtils.isPresent(
          "io.ringtail.redis.RedisKeyedHistogramWindows",
          RingtailMeterBinder.class.getClassLoader());

  private final ListableBeanFactory beans;
  private final WindowConventions conventions;
  private final Set<String> excluded;
  private final List<MeterRegistry> waiting = new ArrayList<>();
  private boolean started;

  /** A binder for the windows of {@code beans}, publishing {@code percentiles} (fractions). */
  public RingtailMeterBinder(ListableBeanFactory beans, List<Double> percentiles, int maximumKeys) {
    this(beans, percentiles, maximumKeys, Set.of());
  }

  /**
   * A binder for the windows of {@code beans} except those named in {@code excluded}, publishing
   * {@code percentiles} (fractions).
   *
   * @throws IllegalArgumentException if the percentiles or maximum keys break {@link
   *     WindowConventions}' rules
   */
  public RingtailMeterBinder(
      ListableBeanFactory beans, List<Double> percentiles, int maximumKeys, Set<String> excluded) {
    this(beans, RingtailProperties.conventionsOf(percentiles, maximumKeys), excluded);
  }

  /**
   * A binder for the windows of {@code beans} except those named in {@code excluded}, under {@code
   * conventions} (its percentiles, maximum keys and failure logging).
   */
  public RingtailMeterBinder(
      ListableBeanFactory beans, WindowConventions conventions, Set<String> excluded) {
    this.beans = Objects.requireNonNull(beans, "beans");
    this.conventions = Objects.requireNonNull(conventions, "conventions");
    this.excluded = Set.copyOf(Objects.requireNonNull(excluded, "excluded"));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (this) {
      if (!started) {
        waiting.add(registry);
        return;
      }
    }
    bindNow(registry);
  }

  private void bindNow(MeterRegistry registry) {
    beans
        .getBeansOfType(RollingWindow.class, false, false)
        .forEach(
            (name, window) -> {
              if (excluded.contains(name) || WindowMetrics.isBound(registry, window)) {
                return;
              }
              MeterBinder fleet = FLEET ? FleetMeters.ofBean(window, name, conventions) : null;
              if (fleet != null) {
                fleet.bindTo(registry);
              } else {
                WindowMetrics.builder(window, name)
                    .conventions(conventions)
                    .build()
                    .bindTo(registry);
              }
            });
    beans
        .getBeansOfType(KeyedWindows.class, false, false)
        .forEach(
            (name, keyed) -> {
              if (excluded.contains(name) || WindowMetrics.isBound(registry, keyed)) {
                return;
              }
              MeterBinder fleet = FLEET ? FleetMeters.ofBean(keyed, name, conventions) : null;
              if (fleet != null) {
                fleet.bindTo(registry);
              } else {
                KeyedWindowMetrics.builder(keyed, name)
                    .conventions(conventions)
                    .build()
                    .bindTo(registry);
              }
            });
    bindDecisions(registry);
  }

  private void bindDecisions(MeterRegistry registry) {
    beans
        .getBeansOfType(CountsDecisions.class, false, false)
        .forEach(
            (name, decision) -> {
              if (!excluded.contains(name)
                  && (decision instanceof RateLimiter
                      || decision instanceof SumCap
                      || decision instanceof ThresholdDetector)) {
                DecisionMetrics.of(decision, name).bindTo(registry);
              }
            });
  }

  /** Binds the registries that arrived before the context started. */
  @Override
  public void start() {
    List<MeterRegistry> now;
    synchronized (this) {
      if (started) {
        return;
      }
      started = true;
      now = List.copyOf(waiting);
      waiting.clear();
    }
    now.forEach(this::bindNow);
  }

  /** Meters stay bound until the registry closes. */
  @Override
  public void stop() {}

  @Override
  public synchronized boolean isRunning() {
    return started;
  }

  /** Early: before the web server starts taking requests. */
  @Override
  public int getPhase() {
    return 0;
  }

  @Override
  public String toString() {
    return "RingtailMeterBinder[" + conventions + ", excluded=" + excluded + "]";
  }
}
