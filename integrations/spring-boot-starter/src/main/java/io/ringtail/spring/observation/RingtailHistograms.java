package io.ringtail.spring.observation;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.prometheus.WindowHistograms;
import io.ringtail.spring.ObservedWindows;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Registers the distribution since creation of every {@link RollingWindow} and {@link KeyedWindows}
 * bean that keeps one ({@code WindowConfig.Builder.cumulativeHistogram(true)}) with the
 * application's {@link PrometheusRegistry}, as {@code ringtail-prometheus}'s {@link
 * WindowHistograms} under each bean's name: {@code ringtail_window_seconds{window="<bean>"}} and
 * {@code ringtail_keyed_seconds}, on the same {@code /actuator/prometheus} page as the gauges. So
 * are the in-process endpoint windows of {@link ObservationWindows} when they keep one ({@code
 * ringtail.observations.cumulative-histogram=true}): {@code ringtail_keyed_seconds{window=
 * "http.server.requests",method="GET",uri="/orders/{id}",status="200",outcome="SUCCESS"}}, each
 * key's tags as labels. Beans named in {@code excluded} are left out; without a {@code
 * PrometheusRegistry} bean it does nothing. Registers when the context starts (every window bean
 * exists by then) and unregisters when it stops.
 *
 * <p>Define a bean of this type to replace it.
 */
public final class RingtailHistograms implements SmartLifecycle {
  private final ListableBeanFactory beans;
  private final Supplier<PrometheusRegistry> registries;
  private PrometheusRegistry registry;
  private final Set<String> excluded;
  private final WindowConventions conventions;
  private WindowHistograms registered;

  /**
   * Registers the histograms of {@code beans}' windows, except {@code excluded}, in the registry
   * {@code registry} gives when the context starts (none, if it gives null).
   */
  public RingtailHistograms(
      ListableBeanFactory beans, Supplier<PrometheusRegistry> registry, Set<String> excluded) {
    this(beans, registry, excluded, WindowConventions.defaults());
  }

  /**
   * As above, under {@code conventions} (maximum keys of each keyed collection, failure logging).
   */
  public RingtailHistograms(
      ListableBeanFactory beans,
      Supplier<PrometheusRegistry> registry,
      Set<String> excluded,
      WindowConventions conventions) {
    this.beans = Objects.requireNonNull(beans, "beans");
    this.registries = Objects.requireNonNull(registry, "registry");
    this.excluded = Set.copyOf(Objects.requireNonNull(excluded, "excluded"));
    this.conventions = Objects.requireNonNull(conventions, "conventions");
  }

  @Override
  public synchronized void start() {
    if (registered != null) {
      return;
    }
    registry = registries.get();
    if (registry == null) {
      return;
    }
    WindowHistograms.Builder histograms = WindowHistograms.builder().conventions(conventions);
    int windows = 0;
    for (Map.Entry<String, RollingWindow> e :
        beans.getBeansOfType(RollingWindow.class, false, false).entrySet()) {
      if (!excluded.contains(e.getKey()) && e.getValue().cumulativeHistogram().isPresent()) {
        histograms.window(e.getKey(), e.getValue());
        windows++;
      }
    }
    for (Map.Entry<String, KeyedWindows> e :
        beans.getBeansOfType(KeyedWindows.class, false, false).entrySet()) {
      if (!excluded.contains(e.getKey()) && e.getValue().windowConfig().cumulativeHistogram()) {
        histograms.keyed(e.getKey(), e.getValue());
        windows++;
      }
    }
    ObservationWindows observations = beans.getBeanProvider(ObservationWindows.class).getIfUnique();
    if (observations != null) {
      for (Map.Entry<String, KeyedWindows> e : observations.windows().entrySet()) {
        if (e.getValue().windowConfig().cumulativeHistogram()) {
          histograms.keyed(
              e.getKey(), e.getValue(), ObservedWindows::keyValues, observations.publishedKeys());
          windows++;
        }
      }
    }
    if (windows > 0) {
      registered = histograms.build().register(registry);
    }
  }

  @Override
  public synchronized void stop() {
    if (registered != null) {
      registry.unregister(registered);
      registered = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return registered != null;
  }
}
