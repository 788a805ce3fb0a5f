package io.ringtail.spring.slo;

import io.ringtail.TimeSource;
import io.ringtail.internal.Checks;
import io.ringtail.slo.AlertStatus;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelStatus;
import io.ringtail.slo.SloConventions;
import io.ringtail.spring.RingtailEndpointSection;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The service levels declared by {@code ringtail.slo.<name>.*}, as the starter runs them: every
 * matching request of the observation is recorded once into its service level (latency and whether
 * it failed), the alerts are evaluated every {@code evaluation-interval}, and each fire and resolve
 * is published as a {@link ServiceLevelAlertEvent} and logged.
 *
 * <p>In-process by default: each instance counts its own requests, and its budget <b>starts whole
 * and its windows empty at each start</b>. With a Redis backend ({@code
 * ringtail.redis.enabled=true}) each service level is fleet-wide ({@code RedisServiceLevel}): every
 * instance records into and reads the fleet's counts, and an alert is published by one instance of
 * the fleet only, the one that owns the objective.
 *
 * <p>Durations are measured on the time source of a bean named {@value #TIME_SOURCE} if the
 * application defines one (tests: a {@code ManualTimeSource}; for a fleet it must be a base every
 * instance shares, such as epoch nanoseconds), else on {@code System.nanoTime()}, and a fleet
 * service level then times its windows on the Redis server's clock.
 *
 * <p>Thread-safe.
 */
public final class ServiceLevels implements RingtailEndpointSection {
  /** The name of the optional {@link TimeSource} bean the service levels read. */
  public static final String TIME_SOURCE = "ringtailSloTimeSource";

  private static final System.Logger LOG = System.getLogger(ServiceLevels.class.getName());

  private final List<Declared> declared;
  private final Scope scope;
  private final Consumer<ServiceLevelAlertEvent> publisher;
  private final TimeSource clock;
  private volatile Route[] routes; // null until built
  private volatile boolean shared; // the observation windows time the requests
  private volatile Map<String, ServiceLevel> levels; // null until built
  private final Map<String, boolean[][]> paged = new LinkedHashMap<>(); // guarded by this
  private final Map<String, boolean[]> owned = new LinkedHashMap<>(); // guarded by this
  private final Map<String, String> failing = new LinkedHashMap<>(); // guarded by this
  private boolean closed; // guarded by this

  ServiceLevels(
      List<Declared> declared,
      Scope scope,
      TimeSource clock,
      Consumer<ServiceLevelAlertEvent> publisher) {
    this.declared = List.copyOf(declared);
    this.scope = Objects.requireNonNull(scope, "scope");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
  }

  /**
   * The service levels by name, in the order declared; built on the first call (the starter builds
   * them once the context's singletons exist).
   */
  public Map<String, ServiceLevel> serviceLevels() {
    Map<String, ServiceLevel> built = levels;
    return built != null ? built : build();
  }

  /**
   * The service level of this name.
   *
   * @throws IllegalArgumentException if none was declared under that name
   */
  public ServiceLevel serviceLevel(String name) {
    ServiceLevel level = serviceLevels().get(name);
    if (level == null) {
      throw Checks.invalid(
          "name", "a declared service level (" + serviceLevels().keySet() + ")", name);
    }
    return level;
  }

  private synchronized Map<String, ServiceLevel> build() {
    if (levels != null) {
      return levels;
    }
    if (closed) {
      return Map.of();
    }
    Map<String, ServiceLevel> byName = new LinkedHashMap<>();
    List<String> observations = observations();
    Route[] built = new Route[declared.size()];
    try {
      for (int i = 0; i < built.length; i++) {
        Declared d = declared.get(i);
        ServiceLevel level = scope.build(d);
        byName.put(d.config.name(), level);
        built[i] =
            new Route(
                observations.indexOf(d.observation),
                d.matcher,
                d.failing,
                level,
                level.timeSource() == clock);
        owned.put(d.config.name(), new boolean[d.config.objectives().size()]);
        paged.put(
            d.config.name(), new boolean[d.config.objectives().size()][d.config.alerts().size()]);
      }
    } catch (RuntimeException e) {
      byName.values().forEach(scope::close);
      throw e;
    }
    routes = built;
    levels = Collections.unmodifiableMap(byName);
    return levels;
  }

  /** The distinct observations the service levels count, in order of declaration. */
  List<String> observations() {
    List<String> out = new ArrayList<>();
    for (Declared d : declared) {
      if (!out.contains(d.observation)) {
        out.add(d.observation);
      }
    }
    return out;
  }

  /** The declarations, in order. */
  List<Declared> declared() {
    return declared;
  }

  /** The clock that times requests. */
  TimeSource clock() {
    return clock;
  }

  /**
   * From now on the observation windows time the requests and hand them over ({@link SharedSlo}).
   */
  void shared() {
    shared = true;
  }

  /** Whether the observation windows time the requests: the SLO handler stands aside. */
  boolean isShared() {
    return shared;
  }

  /** Where requests are recorded; null until built. */
  Route[] routes() {
    return routes;
  }

  /**
   * Evaluates every service level's alerts now, publishes each fire and resolve, and returns them.
   * The scheduler calls this on its own; call it to evaluate at once.
   */
  public List<ServiceLevelAlertEvent> evaluate() {
    List<ServiceLevelAlertEvent> out = new ArrayList<>();
    for (String name : serviceLevels().keySet()) {
      out.addAll(evaluate(name));
    }
    return out;
  }

  /**
   * Evaluates one service level's alerts: an alert whose condition starts to hold fires, one that
   * was fired and no longer holds resolves. A fleet-wide objective's events are published only by
   * the instance that owns it, which posts what it fired; an instance that starts to own it goes on
   * from what the previous owner posted (a fire is neither paged twice nor left unresolved).
   */
  List<ServiceLevelAlertEvent> evaluate(String name) {
    ServiceLevel level = serviceLevel(name);
    ServiceLevelStatus status;
    try {
      status = level.status();
    } catch (RuntimeException e) {
      synchronized (this) {
        if (failing.put(name, String.valueOf(e)) == null) {
          LOG.log(
              Level.WARNING,
              "Service level " + name + ": status unavailable, alerts not evaluated: " + e);
        }
      }
      return List.of();
    }
    List<ServiceLevelAlertEvent> events = new ArrayList<>();
    List<ObjectiveStatus> objectives = status.objectives();
    // what the previous owners posted, for the objectives this instance starts to own (I/O: read
    // outside the lock)
    Map<Integer, boolean[]> before = new HashMap<>();
    synchronized (this) {
      boolean[] held = owned.get(name);
      for (int o = 0; o < objectives.size(); o++) {
        if (!held[o] && scope.owns(level, objectives.get(o).objective().name())) {
          before.put(o, null);
        }
      }
    }
    for (Integer o : before.keySet()) {
      before.put(o, scope.firedBefore(level, objectives.get(o).objective().name()));
    }
    Map<String, boolean[]> posts = new LinkedHashMap<>();
    synchronized (this) {
      if (closed) {
        return List.of();
      }
      failing.remove(name);
      boolean[][] fired = paged.get(name);
      boolean[] held = owned.get(name);
      for (int o = 0; o < objectives.size(); o++) {
        ObjectiveStatus s = objectives.get(o);
        boolean owner = scope.owns(level, s.objective().name());
        if (owner && !held[o] && before.get(o) != null) {
          System.arraycopy(before.get(o), 0, fired[o], 0, fired[o].length);
        }
        held[o] = owner;
        boolean changed = false;
        List<AlertStatus> alerts = s.alerts();
        for (int a = 0; a < alerts.size(); a++) {
          AlertStatus alert = alerts.get(a);
          if (!owner) {
            fired[o][a] = false;
          } else if (alert.firing() && !fired[o][a]) {
            fired[o][a] = true;
            changed = true;
            events.add(event(ServiceLevelAlertEvent.Type.FIRED, name, s, alert));
          } else if (!alert.firing() && fired[o][a]) {
            fired[o][a] = false;
            changed = true;
            events.add(event(ServiceLevelAlertEvent.Type.RESOLVED, name, s, alert));
          }
        }
        if (changed) {
          posts.put(s.objective().name(), fired[o].clone());
        }
      }
    }
    posts.forEach((objective, fired) -> scope.post(level, objective, fired));
    for (ServiceLevelAlertEvent e : events) {
      LOG.log(Level.WARNING, e.toString());
      publisher.accept(e);
    }
    return events;
  }

  private static ServiceLevelAlertEvent event(
      ServiceLevelAlertEvent.Type type, String name, ObjectiveStatus s, AlertStatus a) {
    BurnRateAlert alert = a.alert();
    return new ServiceLevelAlertEvent(
        type,
        name,
        s.objective().name(),
        alert.name(),
        alert.severity(),
        alert.factor(),
        alert.longWindow(),
        alert.shortWindow(),
        a.longBurnRate(),
        a.shortBurnRate());
  }

  @Override
  public String sectionName() {
    return "serviceLevels";
  }

  /** {@link #report()}: the {@code serviceLevels} section of the {@code ringtail} endpoint. */
  @Override
  public Object section() {
    return report();
  }

  /**
   * Every service level as the {@code ringtail} Actuator endpoint shows it: its scope, what it
   * counts, and per objective the SLI, the budget left, the burn rates and the alerts (whether each
   * holds, and whether this instance published its fire). NaN reads as null.
   */
  public List<Map<String, Object>> report() {
    List<Map<String, Object>> out = new ArrayList<>();
    Map<String, ServiceLevel> all = serviceLevels();
    for (Declared d : declared) {
      ServiceLevel level = all.get(d.config.name());
      if (level == null) {
        continue;
      }
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("name", d.config.name());
      e.put("scope", scope.of(level));
      e.putAll(d.describe());
      e.put("period", d.config.period().toString());
      try {
        e.put("objectives", objectives(d, level, level.status()));
      } catch (RuntimeException failure) {
        e.put("error", String.valueOf(failure));
      }
      out.add(e);
    }
    return out;
  }

  private List<Map<String, Object>> objectives(
      Declared d, ServiceLevel level, ServiceLevelStatus status) {
    boolean[][] fired;
    synchronized (this) {
      boolean[][] held = paged.get(d.config.name());
      fired = new boolean[held.length][];
      for (int o = 0; o < held.length; o++) {
        fired[o] = held[o].clone();
      }
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (int o = 0; o < status.objectives().size(); o++) {
      ObjectiveStatus s = status.objectives().get(o);
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("name", s.objective().name());
      e.put("kind", s.objective().kind().name().toLowerCase(java.util.Locale.ROOT));
      e.put("target", s.objective().target());
      s.objective().threshold().ifPresent(t -> e.put("threshold", t.toString()));
      e.put("sli", finite(s.sli()));
      e.put("budgetRemaining", finite(s.budgetRemaining()));
      e.put("events", s.periodCounts().total());
      Map<String, Object> burn = new LinkedHashMap<>();
      s.burnRates().forEach((w, v) -> burn.put(SloConventions.windowLabel(w), finite(v)));
      e.put("burnRates", burn);
      List<Map<String, Object>> alerts = new ArrayList<>();
      for (int a = 0; a < s.alerts().size(); a++) {
        AlertStatus alert = s.alerts().get(a);
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("name", alert.alert().name());
        x.put("severity", alert.alert().severity().label());
        x.put("factor", alert.alert().factor());
        x.put("longBurnRate", finite(alert.longBurnRate()));
        x.put("shortBurnRate", finite(alert.shortBurnRate()));
        x.put("firing", alert.firing());
        x.put("firedHere", fired[o][a]);
        alerts.add(x);
      }
      e.put("alerts", alerts);
      e.put("ownedHere", scope.owns(level, s.objective().name()));
      out.add(e);
    }
    return out;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  /** Stops recording and closes every service level (a fleet one publishes what it holds). */
  synchronized void close() {
    if (!closed) {
      closed = true;
      routes = null;
      if (levels != null) {
        levels.values().forEach(scope::close);
      }
    }
  }

  @Override
  public String toString() {
    List<String> names = new ArrayList<>();
    declared.forEach(d -> names.add(d.config.name()));
    return "ServiceLevels" + names;
  }

  /** Where one service level's requests go. */
  record Route(
      int observation,
      RequestMatcher matcher,
      boolean[] failing,
      ServiceLevel level,
      boolean sameClock) {}
}
