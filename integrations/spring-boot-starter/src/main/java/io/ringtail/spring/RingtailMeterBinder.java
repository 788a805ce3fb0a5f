package io.ringtail.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.RollingWindow;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.micrometer.KeyedWindowMetrics;
import io.ringtail.micrometer.WindowMetrics;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Binds every {@link RollingWindow} and {@link KeyedWindows} bean of the context to a {@link
 * MeterRegistry}, each under its bean name as the window name, with {@link WindowMetrics} and
 * {@link KeyedWindowMetrics}: rolling gauges and {@code _total} counters per window.
 *
 * <p>Spring Boot applies {@link MeterBinder} beans once every singleton exists, so windows declared
 * anywhere in the context are found. Define a bean of this type to replace it.
 *
 * <p>Thread-safe; binding runs once per registry.
 */
public final class RingtailMeterBinder implements MeterBinder {
  private final ListableBeanFactory beans;
  private final double[] percentiles;
  private final int maximumKeys;

  /** A binder for the windows of {@code beans}, publishing {@code percentiles} (fractions). */
  public RingtailMeterBinder(ListableBeanFactory beans, List<Double> percentiles, int maximumKeys) {
    this.beans = Objects.requireNonNull(beans, "beans");
    this.percentiles =
        Objects.requireNonNull(percentiles, "percentiles").stream()
            .mapToDouble(Double::doubleValue)
            .toArray();
    this.maximumKeys = maximumKeys;
    // the builders validate (percentiles in 0..1, maximumKeys in range) here, when the context
    // starts
    KeyedWindowMetrics.builder(Map.<String, RollingWindow>of(), "check")
        .percentiles(this.percentiles)
        .maximumKeys(maximumKeys)
        .build();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    beans
        .getBeansOfType(RollingWindow.class, false, false)
        .forEach(
            (name, window) ->
                WindowMetrics.builder(window, name)
                    .percentiles(percentiles)
                    .build()
                    .bindTo(registry));
    beans
        .getBeansOfType(KeyedWindows.class, false, false)
        .forEach(
            (name, keyed) ->
                KeyedWindowMetrics.builder(keyed, name)
                    .percentiles(percentiles)
                    .maximumKeys(maximumKeys)
                    .build()
                    .bindTo(registry));
  }

  @Override
  public String toString() {
    return "RingtailMeterBinder[percentiles="
        + java.util.Arrays.toString(percentiles)
        + ", maximumKeys="
        + maximumKeys
        + "]";
  }
}
