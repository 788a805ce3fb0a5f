package io.ringtail.micrometer;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** The options {@link WindowMetrics.Builder} and {@link KeyedWindowMetrics.Builder} share. Not thread-safe. */
abstract class SpecBuilder<B extends SpecBuilder<B>> {
  private final String name;
  private String prefix;
  private Tags tags = Tags.empty();
  private double[] percentiles = MeterSpec.DEFAULT_PERCENTILES;
  private TimeUnit timeUnit;
  private String baseUnit;
  private long maxAgeNanos = MeterSpec.DEFAULT_MAX_AGE_NANOS;

  SpecBuilder(String name, String defaultPrefix) {
    this.name = MeterSpec.requireName(name);
    this.prefix = defaultPrefix;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * The common first part of every meter name: {@code ringtail.window} for single windows and
   * {@code ringtail.keyed} for keyed ones unless set. Prometheus needs every meter of one name to
   * carry the same tag keys, so windows bound with different tag keys need different prefixes.
   */
  public B prefix(String prefix) {
    this.prefix = MeterSpec.requirePrefix(prefix);
    return self();
  }

  /** Extra tags on every meter, as key-value pairs. */
  public B tags(String... keyValues) {
    return tags(Tags.of(keyValues));
  }

  /** Extra tags on every meter. */
  public B tags(Iterable<Tag> tags) {
    this.tags = this.tags.and(Objects.requireNonNull(tags, "tags"));
    return self();
  }

  /**
   * The percentiles published, as fractions like Micrometer's ({@code 0.95} for P95), each
   * tagged {@code phi}; 0.5, 0.95 and 0.99 unless set. An empty list publishes none.
   */
  public B percentiles(double... percentiles) {
    this.percentiles = MeterSpec.requirePercentiles(percentiles);
    return self();
  }

  /**
   * The window records durations in this unit: sum, mean, min, max and percentiles become time
   * gauges, reported in the registry's base time unit (seconds for Prometheus). The default is
   * {@link TimeUnit#NANOSECONDS}.
   *
   * @throws IllegalStateException if {@link #baseUnit} was set
   */
  public B timeUnit(TimeUnit timeUnit) {
    if (baseUnit != null) {
      throw new IllegalStateException("timeUnit and baseUnit are exclusive; baseUnit was set to " + baseUnit);
    }
    this.timeUnit = Objects.requireNonNull(timeUnit, "timeUnit");
    return self();
  }

  /**
   * The window records values that are not durations, in this base unit (like "bytes"): sum,
   * mean, min, max and percentiles become plain gauges with this unit.
   *
   * @throws IllegalStateException if {@link #timeUnit} was set
   */
  public B baseUnit(String baseUnit) {
    if (timeUnit != null) {
      throw new IllegalStateException("timeUnit and baseUnit are exclusive; timeUnit was set to " + timeUnit);
    }
    Objects.requireNonNull(baseUnit, "baseUnit");
    if (baseUnit.isBlank()) {
      throw new IllegalArgumentException("baseUnit must not be blank, but was \"" + baseUnit + "\"");
    }
    this.baseUnit = baseUnit;
    return self();
  }

  /**
   * The oldest snapshot a gauge may read, by the window's time source; 1 s unless set. Gauges
   * normally share one snapshot per scrape; this bounds staleness for scrapes that read only
   * some of them. Keep it well below the scrape interval and above how long one scrape takes.
   */
  public B maxSnapshotAge(Duration maxAge) {
    Objects.requireNonNull(maxAge, "maxAge");
    if (maxAge.isNegative()) {
      throw new IllegalArgumentException("maxSnapshotAge must not be negative, but was " + maxAge);
    }
    this.maxAgeNanos = maxAge.toNanos();
    return self();
  }

  MeterSpec spec() {
    TimeUnit unit = baseUnit == null && timeUnit == null ? TimeUnit.NANOSECONDS : timeUnit;
    return new MeterSpec(prefix, name, tags, percentiles.clone(), unit, baseUnit, maxAgeNanos);
  }
}
