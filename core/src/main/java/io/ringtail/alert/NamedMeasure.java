package io.ringtail.alert;

import io.ringtail.WindowSnapshot;
import java.util.Objects;

/** A {@link Measure} with a readable name for events and toString. Immutable. */
record NamedMeasure(Measure measure, String name) implements Measure {
  NamedMeasure {
    Objects.requireNonNull(measure, "measure");
    Objects.requireNonNull(name, "name");
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
