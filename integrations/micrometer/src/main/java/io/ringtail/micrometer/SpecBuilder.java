package io.ringtail.micrometer;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.ringtail.WindowConventions;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The options {@link WindowMetrics.Builder} and {@link KeyedWindowMetrics.Builder} share. Setters
 * store; {@code build()} checks every value (a conflicting unit setter throws at once). Not
 * thread-safe.
 */
abstract class SpecBuilder<B extends SpecBuilder<B>> {
  private final String name;
  private String prefix;
  private final List<Object> tags = new ArrayList<>();
  private WindowConventions conventions = WindowConventions.defaults();
  private double[] percentiles;
  private boolean percentilesSet;
  private TimeUnit timeUnit;
  private boolean timeUnitSet;
  private String baseUnit;
  private boolean baseUnitSet;
  private Duration maxAge = Duration.ofNanos(MeterSpec.DEFAULT_MAX_AGE_NANOS);
  private java.util.Set<WindowMeters> meters = java.util.EnumSet.allOf(WindowMeters.class);

  SpecBuilder(String name, String defaultPrefix) {
    this.name = MeterSpec.requireName(name);
    this.prefix = defaultPrefix;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * The conventions this binding follows ({@link WindowConventions#defaults()} unless set): its
   * default percentiles and (for a keyed binding) maximum keys, and how often a failing window is
   * logged. Values set on this builder win over the conventions' defaults.
   */
  public B conventions(WindowConventions conventions) {
    this.conventions = conventions;
    return self();
  }

  /** The conventions, checked. */
  WindowConventions conventions() {
    return Checks.requireNonNull("conventions", conventions);
  }

  /**
   * The common first part of every meter name: {@code ringtail.window} for single windows and
   * {@code ringtail.keyed} for keyed ones unless set. Prometheus needs every meter of one name to
   * carry the same tag keys, so windows bound with different tag keys need different prefixes.
   */
  public B prefix(String prefix) {
    this.prefix = prefix;
    return self();
  }

  /** Extra tags on every meter, as key-value pairs (an even number of strings). */
  public B tags(String... keyValues) {
    this.tags.add(keyValues == null ? NULL_TAGS : keyValues.clone());
    return self();
  }

  /** Extra tags on every meter. */
  public B tags(Iterable<Tag> tags) {
    this.tags.add(tags == null ? NULL_TAGS : tags);
    return self();
  }

  private static final Object NULL_TAGS = new Object();

  /**
   * The percentiles published, as fractions like Micrometer's ({@code 0.95} for P95; {@link
   * WindowConventions#requirePercentiles the rule}), each tagged {@code phi}; the conventions'
   * (0.5, 0.95 and 0.99 by default) unless set. An empty list publishes none.
   */
  public B percentiles(double... percentiles) {
    this.percentiles = percentiles == null ? null : percentiles.clone();
    this.percentilesSet = true;
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
    if (baseUnitSet) {
      throw new IllegalStateException(
          "timeUnit and baseUnit are exclusive; baseUnit was set to " + baseUnit);
    }
    this.timeUnit = timeUnit;
    this.timeUnitSet = true;
    return self();
  }

  /**
   * The window records values that are not durations, in this base unit (like "bytes"): sum, mean,
   * min, max and percentiles become plain gauges with this unit.
   *
   * @throws IllegalStateException if {@link #timeUnit} was set
   */
  public B baseUnit(String baseUnit) {
    if (timeUnitSet) {
      throw new IllegalStateException(
          "timeUnit and baseUnit are exclusive; timeUnit was set to " + timeUnit);
    }
    this.baseUnit = baseUnit;
    this.baseUnitSet = true;
    return self();
  }

  /**
   * The oldest snapshot a gauge may read, by the window's time source; 1 s unless set. Gauges
   * normally share one snapshot per scrape; this bounds staleness for scrapes that read only some
   * of them. Keep it well below the scrape interval and above how long one scrape takes.
   */
  public B maxSnapshotAge(Duration maxAge) {
    this.maxAge = maxAge;
    return self();
  }

  /**
   * Which meters each window gets: its rolling {@linkplain WindowMeters#STATISTICS statistics}, its
   * {@linkplain WindowMeters#TOTALS totals} since creation, or both (the default).
   */
  public B meters(WindowMeters first, WindowMeters... more) {
    Checks.requireNonNull("meters", first);
    java.util.Set<WindowMeters> set = java.util.EnumSet.of(first);
    for (WindowMeters m : Checks.requireNonNull("meters", more)) {
      set.add(Checks.requireNonNull("meters", m));
    }
    this.meters = set;
    return self();
  }

  /**
   * Tags from key-value pairs, checked: an even number of strings, none null.
   *
   * @throws NullPointerException naming "tags", a "tag key" or a "tag value"
   * @throws IllegalArgumentException for an odd number of strings
   */
  static Tags keyValueTags(String... keyValues) {
    Checks.requireNonNull("tags", keyValues);
    if (keyValues.length % 2 != 0) {
      throw Checks.invalid(
          "tags", "key-value pairs (an even number of strings)", keyValues.length + " strings");
    }
    for (int i = 0; i < keyValues.length; i++) {
      Checks.requireNonNull(i % 2 == 0 ? "tag key" : "tag value", keyValues[i]);
    }
    return Tags.of(keyValues);
  }

  /** Checks every value; the spec the built binder registers. */
  MeterSpec spec() {
    MeterSpec.requirePrefix(prefix);
    Tags all = Tags.empty();
    for (Object t : tags) {
      if (t == NULL_TAGS) {
        throw new NullPointerException("tags");
      }
      if (t instanceof String[] keyValues) {
        all = all.and(keyValueTags(keyValues));
      } else {
        @SuppressWarnings("unchecked")
        Iterable<Tag> iterable = (Iterable<Tag>) t;
        all = all.and(iterable);
      }
    }
    WindowConventions c = conventions();
    double[] ps =
        percentilesSet ? WindowConventions.requirePercentiles(percentiles) : c.percentiles();
    if (timeUnitSet) {
      Checks.requireNonNull("timeUnit", timeUnit);
    }
    if (baseUnitSet) {
      Checks.requireNonBlank("baseUnit", baseUnit);
    }
    long maxAgeNanos = Checks.requireNonNegativeNanos("maxSnapshotAge", maxAge);
    TimeUnit unit = baseUnit == null && timeUnit == null ? TimeUnit.NANOSECONDS : timeUnit;
    return new MeterSpec(prefix, name, all, ps, unit, baseUnit, maxAgeNanos, c, meters);
  }
}
