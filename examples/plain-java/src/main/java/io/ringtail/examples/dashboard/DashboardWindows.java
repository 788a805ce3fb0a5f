package io.ringtail.examples.dashboard;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/**
 * The windows of one dashboard run: the short and long windows the page reads, and the windows each
 * simulated worker records into; likewise the service level. In-process, every worker records into
 * the same two windows and service level; in a fleet, each worker has its own connection to the
 * shared windows and service level in Redis. Immutable; the windows themselves are thread-safe.
 */
class DashboardWindows implements AutoCloseable {
  static final Duration SHORT = Duration.ofSeconds(10);
  static final Duration LONG = Duration.ofSeconds(60);

  private final String mode;
  private final RollingWindow shortView;
  private final RollingWindow longView;
  private final List<List<RollingWindow>> perWorker;
  private final KeyedWindows routesView;
  private final List<KeyedWindows> routesPerWorker;
  private final ServiceLevel serviceLevelView;
  private final List<? extends ServiceLevel> serviceLevelPerWorker;

  /**
   * With per-route windows: {@code routesView} for the page (null for none) and the keyed windows
   * each worker records into; the service level the page reads and the one each worker records
   * into.
   */
  DashboardWindows(
      String mode,
      RollingWindow shortView,
      RollingWindow longView,
      List<List<RollingWindow>> perWorker,
      KeyedWindows routesView,
      List<KeyedWindows> routesPerWorker,
      ServiceLevel serviceLevelView,
      List<? extends ServiceLevel> serviceLevelPerWorker) {
    this.mode = mode;
    this.shortView = shortView;
    this.longView = longView;
    this.perWorker = List.copyOf(perWorker);
    this.routesView = routesView;
    this.routesPerWorker = routesPerWorker == null ? null : List.copyOf(routesPerWorker);
    this.serviceLevelView = serviceLevelView;
    this.serviceLevelPerWorker = List.copyOf(serviceLevelPerWorker);
  }

  /**
   * Two in-process windows (10 s in 10 buckets, 60 s in 60), in-process windows per route (60 s in
   * 60 buckets) and an in-process service level of {@code slo} that every worker shares.
   */
  static DashboardWindows inProcess(int workers, TimeSource time, ServiceLevelConfig slo) {
    RollingWindow shortWindow =
        RollingWindow.create(WindowConfig.builder().length(SHORT).buckets(10).build(), time);
    RollingWindow longWindow = RollingWindow.create(ROUTE_WINDOW, time);
    KeyedWindows routes = KeyedWindows.builder().window(ROUTE_WINDOW).timeSource(time).build();
    ServiceLevel serviceLevel = ServiceLevel.inProcess(slo, time);
    return new DashboardWindows(
        "in-process",
        shortWindow,
        longWindow,
        Collections.nCopies(workers, List.of(shortWindow, longWindow)),
        routes,
        Collections.nCopies(workers, routes),
        serviceLevel,
        Collections.nCopies(workers, serviceLevel));
  }

  /** Each route's window, and the long window's: 60 s in 60 buckets. */
  static final WindowConfig ROUTE_WINDOW = WindowConfig.builder().length(LONG).buckets(60).build();

  /** How the windows are kept, for people. */
  String mode() {
    return mode;
  }

  RollingWindow shortView() {
    return shortView;
  }

  RollingWindow longView() {
    return longView;
  }

  /** The windows worker {@code i} records into. */
  List<RollingWindow> forWorker(int i) {
    return perWorker.get(i);
  }

  /** The per-route windows the page reads, or null when there are none. */
  KeyedWindows routesView() {
    return routesView;
  }

  /** The per-route windows worker {@code i} records into, or null when there are none. */
  KeyedWindows routesForWorker(int i) {
    return routesPerWorker == null ? null : routesPerWorker.get(i);
  }

  /** The service level the page reads. */
  ServiceLevel serviceLevelView() {
    return serviceLevelView;
  }

  /** The service level worker {@code i} records into. */
  ServiceLevel serviceLevelForWorker(int i) {
    return serviceLevelPerWorker.get(i);
  }

  /** Whose requests the page's service level counts, for people. */
  String serviceLevelScope() {
    return "this process";
  }

  /** The worker that should page for {@code objective}, or null if none does (in-process). */
  Integer pagerOf(String objective) {
    return null;
  }

  /**
   * Waits until every recorded sample is visible to the views (in-process, they always are);
   * returns whether they all are.
   */
  boolean flush() {
    return true;
  }

  @Override
  public void close() {}
}
