package io.ringtail.examples.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.RedisHistogramSnapshot;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevelStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * What the dashboard shows: a history of once-a-second samples of a short and a long rolling
 * window, the simulated regime, the alert state and the service level. Thread-safe: one thread
 * samples, any thread reads.
 */
final class DashboardModel {
  static final int MAX_POINTS = 900;

  private final String mode;
  private final Options options;
  private final RollingWindow shortWindow;
  private final RollingWindow longWindow;
  private final KeyedWindows routes;
  private final SimulatedService service;
  private final DashboardAlerts alerts;
  private final DashboardSlo slo;
  private final TimeSource time;
  private final long startNanos;
  private final long startEpochMillis;
  private final Supplier<long[]> servedPerWorker;
  private final ArrayDeque<Point> history = new ArrayDeque<>();
  private final ArrayDeque<String> recentEvents = new ArrayDeque<>();
  private boolean finished;
  private volatile Point latest;
  private volatile FleetView fleet;
  private volatile List<RouteView> routeViews = List.of();

  DashboardModel(
      String mode,
      Options options,
      RollingWindow shortWindow,
      RollingWindow longWindow,
      KeyedWindows routes,
      SimulatedService service,
      DashboardAlerts alerts,
      DashboardSlo slo,
      TimeSource time,
      long startNanos,
      long startEpochMillis,
      Supplier<long[]> servedPerWorker) {
    this.servedPerWorker = servedPerWorker;
    this.mode = mode;
    this.options = options;
    this.shortWindow = shortWindow;
    this.longWindow = longWindow;
    this.routes = routes;
    this.service = service;
    this.alerts = alerts;
    this.slo = slo;
    this.time = time;
    this.startNanos = startNanos;
    this.startEpochMillis = startEpochMillis;
  }

  /**
   * Takes one sample of both windows, the alerts and the service level, appends it to the history
   * and returns it.
   */
  synchronized Point sample() {
    long now = time.nanoTime();
    long elapsed = now - startNanos;
    WindowStats s = WindowStats.of(shortWindow.snapshot());
    WindowSnapshot longSnapshot = longWindow.snapshot();
    WindowStats l = WindowStats.of(longSnapshot);
    if (longSnapshot instanceof RedisHistogramSnapshot h) {
      double seconds = Math.max(1e-9, (h.endNanos() - h.startNanos()) / 1e9);
      fleet = new FleetView(h.count() / seconds, h.stalenessNanos() / 1e9, h.publishers());
    }
    if (routes != null) {
      List<RouteView> views = new java.util.ArrayList<>();
      // a fleet's routes: each route's numbers as its merger summarised them, a few bytes each
      Map<String, ? extends WindowSnapshot> read =
          routes instanceof RedisKeyedHistogramWindows fleetRoutes
              ? fleetRoutes.summaries()
              : routes.snapshots();
      read.forEach((route, r) -> views.add(RouteView.of(route, r)));
      views.sort(java.util.Comparator.comparing(RouteView::route));
      routeViews = List.copyOf(views);
    }
    List<String> events = alerts.evaluate(elapsed);
    List<String> sloEvents = new java.util.ArrayList<>();
    ServiceLevelStatus status = slo.sample(elapsed, sloEvents);
    List<String> pointEvents = new java.util.ArrayList<>(events);
    sloEvents.forEach(e -> pointEvents.add("slo " + e));
    Point p =
        new Point(
            startEpochMillis + elapsed / 1_000_000,
            elapsed,
            service.regimeAt(elapsed),
            s,
            l,
            alerts.anyFiring(),
            List.copyOf(pointEvents),
            status,
            slo.state());
    if (history.size() == MAX_POINTS) {
      history.removeFirst();
    }
    history.addLast(p);
    for (String e : events) {
      if (recentEvents.size() == 10) {
        recentEvents.removeFirst();
      }
      recentEvents.addLast(String.format(java.util.Locale.ROOT, "%.0f s: %s", elapsed / 1e9, e));
    }
    latest = p;
    return p;
  }

  /** The fleet view behind the long window, if it is a histogram window in Redis; else null. */
  FleetView fleet() {
    return fleet;
  }

  /**
   * How much the fleet records and how fresh the page's view of it is: samples per second over the
   * long window, how far behind its oldest publisher may lag, and how many processes publish.
   */
  record FleetView(double ratePerSecond, double stalenessSeconds, int publishers) {}

  /** Each route's long window as of the latest sample, by route. */
  List<RouteView> routes() {
    return routeViews;
  }

  /** One route's statistics over the long window (fleet-wide in fleet mode). */
  record RouteView(String route, WindowStats stats) {
    static RouteView of(String route, WindowSnapshot s) {
      return new RouteView(route, WindowStats.of(s));
    }
  }

  /** The service level the page shows. */
  DashboardSlo slo() {
    return slo;
  }

  /** The latest sample, or null before the first. */
  Point latest() {
    return latest;
  }

  synchronized void finish() {
    finished = true;
  }

  String mode() {
    return mode;
  }

  static String label(Duration d) {
    return d.toSeconds() + " s";
  }

  /** The JSON document the page reads: settings, current values, alert, and the series. */
  synchronized ObjectNode toJson() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode root = f.objectNode();
    root.put("service", "checkout (simulated)");
    root.put("mode", mode);
    root.put("durationSeconds", options.duration().toSeconds());
    root.put("rate", options.rate());
    root.put("workers", options.workers());
    root.put("sloMillis", options.sloMillis());
    root.put("finished", finished);
    Point p = latest;
    root.put("elapsedSeconds", p == null ? 0 : p.elapsedNanos() / 1e9);
    root.put("regime", p == null ? service.regimeAt(0).label() : p.regime().label());

    ArrayNode served = root.putArray("servedByWorker");
    for (long n : servedPerWorker.get()) {
      served.add(n);
    }

    FleetView fv = fleet;
    if (fv != null) {
      ObjectNode o = root.putObject("fleet");
      o.put("ratePerSecond", fv.ratePerSecond());
      o.put("stalenessSeconds", fv.stalenessSeconds());
      o.put("publishers", fv.publishers());
    }

    ArrayNode routeArray = root.putArray("routes");
    for (RouteView r : routeViews) {
      ObjectNode o = routeArray.addObject();
      o.put("route", r.route());
      o.put("count", r.stats().count());
      o.set("p95Millis", number(f, r.stats().p95Millis()));
      o.set("p99Millis", number(f, r.stats().p99Millis()));
    }

    ObjectNode windows = root.putObject("windows");
    windows.set("short", windowJson(f, shortWindow, p == null ? null : p.shortWindow()));
    windows.set("long", windowJson(f, longWindow, p == null ? null : p.longWindow()));

    ObjectNode a = root.putObject("alert");
    a.put("state", p != null && p.alertFiring() ? "FIRING" : "OK");
    a.put("source", "io.ringtail.alert");
    ArrayNode rules = a.putArray("rules");
    for (DashboardAlerts.RuleStatus r : alerts.statuses()) {
      ObjectNode o = rules.addObject();
      o.put("name", r.name());
      o.put("description", r.description());
      o.put("state", r.state().name());
      if (r.sinceNanos() >= 0) {
        o.put("sinceSeconds", r.sinceNanos() / 1e9);
      } else {
        o.putNull("sinceSeconds");
      }
      if (r.name().equals(DashboardAlerts.ANOMALY_RULE) && !Double.isNaN(r.value())) {
        o.put("score", r.value());
      }
    }
    ArrayNode events = a.putArray("events");
    for (String e : recentEvents) {
      events.add(e);
    }

    root.set("slo", slo.toJson(f));

    ObjectNode series = root.putObject("series");
    ArrayNode t = series.putArray("time");
    ArrayNode regime = series.putArray("regime");
    ArrayNode firing = series.putArray("alert");
    for (Point q : history) {
      t.add(q.epochMillis() / 1000.0);
      regime.add(q.regime().label());
      firing.add(q.alertFiring() ? 1 : 0);
    }
    series.set("short", seriesJson(f, Point::shortWindow));
    series.set("long", seriesJson(f, Point::longWindow));
    ObjectNode budget = series.putObject("sloBudgetRemaining");
    for (io.ringtail.slo.Objective o : slo.config().objectives()) {
      ArrayNode column = budget.putArray(o.name());
      for (Point q : history) {
        ObjectiveStatus s = q.slo().objective(o.name());
        column.add(s.budgetRemaining());
      }
    }
    ArrayNode sloState = series.putArray("slo");
    for (Point q : history) {
      sloState.add(q.sloState());
    }
    return root;
  }

  private ObjectNode windowJson(JsonNodeFactory f, RollingWindow w, WindowStats now) {
    ObjectNode o = f.objectNode();
    o.put("label", label(w.length()));
    o.put("lengthSeconds", w.length().toSeconds());
    ObjectNode c = o.putObject("current");
    if (now != null) {
      c.put("count", now.count());
      c.put("rejected", now.rejected());
      c.set("meanMillis", number(f, now.meanMillis()));
      c.set("p95Millis", number(f, now.p95Millis()));
      c.set("p99Millis", number(f, now.p99Millis()));
      c.set("minMillis", number(f, now.minMillis()));
      c.set("maxMillis", number(f, now.maxMillis()));
    }
    return o;
  }

  private ObjectNode seriesJson(JsonNodeFactory f, Function<Point, WindowStats> which) {
    ObjectNode o = f.objectNode();
    ArrayNode count = o.putArray("count");
    for (Point q : history) {
      count.add(which.apply(q).count());
    }
    column(f, o.putArray("meanMillis"), which, WindowStats::meanMillis);
    column(f, o.putArray("p95Millis"), which, WindowStats::p95Millis);
    column(f, o.putArray("p99Millis"), which, WindowStats::p99Millis);
    return o;
  }

  private void column(
      JsonNodeFactory f,
      ArrayNode into,
      Function<Point, WindowStats> which,
      ToDoubleFunction<WindowStats> value) {
    for (Point q : history) {
      into.add(number(f, value.applyAsDouble(which.apply(q))));
    }
  }

  /** JSON has no NaN: an empty window's statistics are null, never a fake 0. */
  private static JsonNode number(JsonNodeFactory f, double v) {
    return Double.isNaN(v) ? f.nullNode() : f.numberNode(v);
  }
}
