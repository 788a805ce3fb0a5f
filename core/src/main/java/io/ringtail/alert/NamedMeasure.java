package io.ringtail.alert;

import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;

/** A {@link Measure} with a readable name for events and toString. Immutable. */
record NamedMeasure(Measure measure, String name) implements Measure {
  NamedMeasure {
    Checks.requireNonNull("measure", measure);
    Checks.requireNonNull("name", name);
  }

  @Override
  public double of(WindowSnapshot snapshot) {
    return measure.of(snapshot);
  }

  @Override
  public String toString() {
    return name;
  }
}
