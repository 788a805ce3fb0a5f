package io.ringtail.spring.slo;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ringtail.micrometer.SloMetrics;

/**
 * The declared service levels' meters ({@code ringtail_slo_*}, {@link SloMetrics}): per objective
 * the events and good events this instance recorded (counters), and the SLI, budget remaining, burn
 * rates and alert conditions of the service level (the fleet's, for a fleet-wide one).
 */
final class SloMeters implements MeterBinder {
  private final ServiceLevels levels;

  SloMeters(ServiceLevels levels) {
    this.levels = levels;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    levels.serviceLevels().values().forEach(level -> SloMetrics.of(level).bindTo(registry));
  }
}
