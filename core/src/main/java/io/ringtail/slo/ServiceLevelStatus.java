package io.ringtail.slo;

import io.ringtail.internal.Checks;
import java.util.List;

/**
 * Where a service level stands at one instant: one {@link ObjectiveStatus} per objective, all from
 * one consistent read of the counts.
 *
 * <p>Immutable and thread-safe.
 */
public final class ServiceLevelStatus {
  private final ServiceLevelConfig config;
  private final long timeNanos;
  private final List<ObjectiveStatus> objectives;

  /**
   * A status of {@code config} at {@code timeNanos} from its objectives' statuses.
   *
   * @throws IllegalArgumentException if they are not one per objective of the config, in its order
   */
  public ServiceLevelStatus(
      ServiceLevelConfig config, long timeNanos, List<ObjectiveStatus> objectives) {
    this.config = Checks.requireNonNull("config", config);
    this.timeNanos = timeNanos;
    this.objectives = List.copyOf(Checks.requireNonNull("objectives", objectives));
    List<Objective> given = this.objectives.stream().map(ObjectiveStatus::objective).toList();
    if (!given.equals(config.objectives())) {
      throw Checks.invalid("objectives", "one status per objective of the config, in order", given);
    }
  }

  /** The service level's configuration. */
  public ServiceLevelConfig config() {
    return config;
  }

  /** The time-source reading the status was computed at. */
  public long timeNanos() {
    return timeNanos;
  }

  /** One status per objective, in the config's order. */
  public List<ObjectiveStatus> objectives() {
    return objectives;
  }

  /**
   * The status of the objective named {@code name}.
   *
   * @throws IllegalArgumentException if there is none
   */
  public ObjectiveStatus objective(String name) {
    Checks.requireNonNull("name", name);
    for (ObjectiveStatus s : objectives) {
      if (s.objective().name().equals(name)) {
        return s;
      }
    }
    throw Checks.invalid("name", "the name of an objective of " + config.name(), name);
  }

  @Override
  public String toString() {
    return "ServiceLevelStatus[" + config.name() + " at " + timeNanos + ": " + objectives + "]";
  }
}
