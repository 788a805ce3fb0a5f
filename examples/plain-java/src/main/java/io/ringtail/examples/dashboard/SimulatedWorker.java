package io.ringtail.examples.dashboard;

import io.ringtail.RollingWindow;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.slo.ServiceLevel;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One instance of the simulated service: serves requests at a fixed rate and records each request's
 * latency into its windows, and its latency and outcome (failed or not) into its service level. Not
 * thread-safe: one thread drives a worker; several workers may share windows and service levels.
 */
final class SimulatedWorker {
  private final SimulatedService service;

  /** The routes the simulated service serves, in turn: each gets a third of the requests. */
  static final List<String> ROUTES = List.of("GET /cart", "GET /search", "POST /checkout");

  private final List<RollingWindow> windows;
  private final KeyedWindows routes;
  private final ServiceLevel serviceLevel;
  private final double requestsPerSecond;
  private final long startNanos;
  private final SplittableRandom random;
  private final SplittableRandom failures;
  private volatile long served;

  SimulatedWorker(
      SimulatedService service,
      List<RollingWindow> windows,
      double requestsPerSecond,
      long startNanos,
      long seed) {
    this(service, windows, null, null, requestsPerSecond, startNanos, seed);
  }

  /**
   * Also records each request's latency for its route into {@code routes}, and each request into
   * {@code serviceLevel} (either may be null). Latencies and failures are drawn from two streams of
   * {@code seed}, so the latencies do not depend on whether failures are recorded.
   */
  SimulatedWorker(
      SimulatedService service,
      List<RollingWindow> windows,
      KeyedWindows routes,
      ServiceLevel serviceLevel,
      double requestsPerSecond,
      long startNanos,
      long seed) {
    this.service = service;
    this.routes = routes;
    this.serviceLevel = serviceLevel;
    this.windows = List.copyOf(windows);
    this.requestsPerSecond = requestsPerSecond;
    this.startNanos = startNanos;
    this.random = new SplittableRandom(seed);
    this.failures = new SplittableRandom(~seed);
  }

  /** Serves every request due by {@code nowNanos} and returns how many it served. */
  int catchUp(long nowNanos) {
    long elapsed = nowNanos - startNanos;
    long due = (long) (requestsPerSecond * elapsed / 1e9);
    Regime regime = service.regimeAt(elapsed);
    long done = served;
    int n = 0;
    for (; done < due; done++, n++) {
      long latency = regime.sampleNanos(random);
      for (RollingWindow window : windows) {
        window.record(latency);
      }
      if (routes != null) {
        routes.record(ROUTES.get((int) (done % ROUTES.size())), latency);
      }
      if (serviceLevel != null) {
        serviceLevel.record(latency, regime.sampleFailed(failures));
      }
    }
    served = done;
    return n;
  }

  long served() {
    return served;
  }
}
