package io.ringtail.spring.slo;

import io.micrometer.observation.Observation;
import io.ringtail.TimeSource;
import io.ringtail.spring.SharedTiming;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The service levels sharing the observation windows' timing: when the windows time every
 * observation the service levels count, on the service levels' clock, and no declaration selects on
 * a key value the windows leave out of their keys, each key of the windows gets its recording here,
 * and the {@link SloObservationHandler} stands aside. Whether a key is counted, and whether its
 * status fails, is decided once per key (and per service level); a request then costs each matching
 * service level's record. Thread-safe.
 */
final class SharedSlo implements SharedTiming {
  private final ServiceLevels levels;

  SharedSlo(ServiceLevels levels) {
    this.levels = levels;
  }

  @Override
  public TimeSource timeSource() {
    return levels.clock();
  }

  @Override
  public boolean share(Set<String> observations, Set<String> ignored) {
    for (Declared d : levels.declared()) {
      if (!observations.contains(d.observation) || d.matcher.selectsOn(ignored)) {
        return false;
      }
    }
    levels.shared();
    return true;
  }

  @Override
  public KeyRecording recordingOf(String observation, Map<String, String> keyValues) {
    for (Declared d : levels.declared()) {
      if (d.observation.equals(observation) && d.matcher.matches(keyValues)) {
        return new Key(observation, Map.copyOf(keyValues));
      }
    }
    return null;
  }

  /**
   * One key's requests: the service levels counting it, found when they exist (a fleet one is built
   * once the context's singletons exist).
   */
  private final class Key implements KeyRecording {
    private final String observation;
    private final Map<String, String> keyValues;
    private final int status;
    private volatile Target[] targets; // null until the service levels are built

    Key(String observation, Map<String, String> keyValues) {
      this.observation = observation;
      this.keyValues = keyValues;
      this.status = SloObservationHandler.statusCode(keyValues.get(SloObservationHandler.STATUS));
    }

    @Override
    public void record(Observation.Context context, long durationNanos, long nowNanos) {
      Target[] t = targets;
      if (t == null && (t = resolve()) == null) {
        return; // not built yet: as the handler, requests before are not recorded
      }
      for (Target target : t) {
        boolean failed = status >= 0 ? target.failedByStatus : context.getError() != null;
        if (target.route.sameClock()) {
          target.route.level().recordAt(durationNanos, failed, nowNanos);
        } else {
          target.route.level().record(durationNanos, failed);
        }
      }
    }

    private Target[] resolve() {
      ServiceLevels.Route[] routes = levels.routes();
      if (routes == null) {
        return null;
      }
      int index = levels.observations().indexOf(observation);
      List<Target> out = new ArrayList<>(routes.length);
      for (ServiceLevels.Route r : routes) {
        if (r.observation() == index && r.matcher().matches(keyValues)) {
          boolean failed = status >= 0 && status < r.failing().length && r.failing()[status];
          out.add(new Target(r, failed));
        }
      }
      Target[] resolved = out.toArray(Target[]::new);
      targets = resolved;
      return resolved;
    }
  }

  /** A service level counting a key, and whether the key's status fails it. */
  private record Target(ServiceLevels.Route route, boolean failedByStatus) {}
}
