package io.ringtail.spring.slo;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.ringtail.TimeSource;
import io.ringtail.spring.internal.StartTimes;

/**
 * Records each stopped observation of a declared service level's observation into every service
 * level whose requests it matches, once: its latency (from start to stop on the service levels'
 * clock) and whether it failed (its {@code status} key value is one of the service level's failure
 * statuses; an observation without a numeric status failed when it ended in an error).
 *
 * <p>While the starter's observation windows time the same observations, they hand each request
 * over instead ({@link SharedSlo}) and this handler stands aside: one clock reading and one key
 * lookup serve both.
 *
 * <p>The start path puts a pooled holder of the start time in the context; the stop path reads the
 * clock, the {@code status}, {@code method} and {@code uri} key values by map lookups (no copy) and
 * records into each matching service level: no lock, and no allocation once the pool is warm and
 * the URI templates were seen. Observations that stop before the service levels are built (a fleet
 * one is built once the context's singletons exist) are not recorded. Thread-safe.
 */
final class SloObservationHandler implements ObservationHandler<Observation.Context> {
  static final String STATUS = "status";

  private final ServiceLevels levels;
  private final String[] observations; // interned: Spring's names are constants, matched by ==
  private final TimeSource clock;
  private final StartTimes starts = new StartTimes(256);

  SloObservationHandler(ServiceLevels levels) {
    this.levels = levels;
    this.observations = levels.observations().stream().map(String::intern).toArray(String[]::new);
    this.clock = levels.clock();
  }

  /**
   * Every context: an observation named by its convention (as Spring MVC's) has no name yet when
   * its handlers are chosen, so the name is checked when it starts.
   */
  @Override
  public boolean supportsContext(Observation.Context context) {
    return !levels.isShared();
  }

  @Override
  public void onStart(Observation.Context context) {
    String name = context.getName();
    if (name == null || levels.isShared()) {
      return;
    }
    for (int i = 0; i < observations.length; i++) {
      if (observations[i] == name || observations[i].equals(name)) {
        context.put(starts, starts.take(clock.nanoTime(), context, i));
        return;
      }
    }
  }

  @Override
  public void onStop(Observation.Context context) {
    StartTimes.Start start = context.get(starts);
    if (start == null || start.owner != context) {
      return; // not observed, or stopped before
    }
    ServiceLevels.Route[] routes = levels.routes();
    if (routes != null) {
      long now = clock.nanoTime();
      long latency = now - start.nanos;
      int status = -2; // not read yet
      for (ServiceLevels.Route r : routes) {
        if (r.observation() == start.observed && r.matcher().matches(context)) {
          if (status == -2) {
            status = statusOf(context);
          }
          boolean failed =
              status >= 0 ? status < r.failing().length && r.failing()[status] : failed(context);
          if (r.sameClock()) {
            r.level().recordAt(latency, failed, now);
          } else {
            r.level().record(latency, failed);
          }
        }
      }
    }
    starts.give(start, context);
  }

  private static boolean failed(Observation.Context context) {
    return context.getError() != null;
  }

  /** The {@code status} key value as a number, or -1 when absent or not a number. */
  static int statusOf(Observation.Context context) {
    return statusCode(RequestMatcher.valueOf(context, STATUS));
  }

  /** A {@code status} key value as a number, or -1 when absent or not a number. */
  static int statusCode(String s) {
    if (s == null || s.isEmpty() || s.length() > 3) {
      return -1;
    }
    int code = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      code = code * 10 + (c - '0');
    }
    return code;
  }

  @Override
  public String toString() {
    return "SloObservationHandler[" + levels + "]";
  }
}
