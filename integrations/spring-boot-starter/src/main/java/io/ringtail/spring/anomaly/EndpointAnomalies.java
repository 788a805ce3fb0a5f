package io.ringtail.spring.anomaly;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.ringtail.WindowSnapshot;
import io.ringtail.alert.AlertEvent;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.RuleSnapshot;
import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.anomaly.EndpointWindow.Pool;
import io.ringtail.spring.anomaly.EndpointWindow.Read;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Anomaly alerts on every endpoint of the {@link ObservedWindows}, by configuration: each
 * endpoint's measures (its P95, its share of 5xx answers, its request rate) are core {@linkplain
 * AlertRule#anomaly anomaly rules}, one per endpoint and measure, on one core {@link AlertMonitor}
 * ({@link #monitor()}); each rule's detector (core's {@link AnomalyDetector}, built from one {@link
 * AnomalyDetectorConfig}) scores its measure at every {@link #evaluate()}.
 *
 * <p>An endpoint is a combination of the configured key values ({@code method} and {@code uri} by
 * default); the keys that differ only in other values ({@code status}, {@code outcome}) are pooled
 * into it ({@link WindowSnapshot#pooled}). At most {@code maximumEndpoints} endpoints per
 * observation are watched, each with one detector (about 1.5 KiB) and two gauges per measure. Each
 * evaluation reads each observation's keys once and pools them, then evaluates the monitor: a
 * rule's window is a view of its endpoint's pooled keys as read at that evaluation.
 *
 * <p><b>Firing and resolving</b> are the rules': {@link AlertRule.Builder#atLeast atLeast(level)}
 * on the score, {@link AlertRule.Builder#onlyAboveBaseline onlyAboveBaseline} for P95 and the error
 * ratio (a measure fires only above its baseline, an exponentially weighted mean of its values
 * while not firing), and {@link AlertRule.Builder#resolveWhenBack() resolveWhenBack} (it resolves
 * once back at least half-way from the value that fired to the baseline). Each fire and resolve
 * (core's {@link AlertEvent}) is published as an {@link EndpointAnomalyEvent} to {@code publisher}
 * and logged at WARNING; the score is the gauge {@code ringtail.anomaly.score} and the state the
 * gauge {@code ringtail.anomaly.firing} (tags {@code window}, {@code measure} and the endpoint's
 * key values).
 *
 * <p><b>Fleet.</b> With fleet-wide windows each endpoint is evaluated once for the fleet: by the
 * instance that merges the group of the endpoint's first key (in key order), which reads the
 * fleet's summaries (one small read per evaluation, no distribution) and posts its measures' states
 * (each rule's {@link RuleSnapshot}, with whether it paged) to a Redis {@code StateBoard}; every
 * other instance holds no rule for the endpoint, shows the posted states ({@link #states()}, {@code
 * /actuator/ringtail}) and exports no gauge for it, so each gauge exists once in the fleet. When
 * the group's lease moves, the next evaluator adds the endpoint's rules from the posted snapshots
 * ({@link AlertMonitor#add(AlertRule, RuleSnapshot)}: baseline, firing, fired value; and paged: a
 * fire is paged once and resolved once) while their detectors warm up again. {@code pager} decides
 * whether a fire is paged: {@link Pager#always()} in-process, a fleet-wide claim (one per endpoint
 * and measure per dedupe period, from a Redis rate limiter) with a fleet, for the moment of a
 * handover when two instances may both evaluate; an instance whose claim is refused keeps the state
 * but publishes neither the fire nor its resolve.
 *
 * <p>Thread-safe: evaluations are serialised; {@link #states()} may be called from any thread.
 */
public final class EndpointAnomalies {
  private static final System.Logger LOG = System.getLogger(EndpointAnomalies.class.getName());

  /** What is measured per endpoint. */
  public enum Measure {
    /** The 95th percentile of the endpoint's durations, in the window's units (nanoseconds). */
    P95,
    /** The fraction of the endpoint's requests answered 5xx (status) or SERVER_ERROR (outcome). */
    ERROR_RATIO,
    /** Requests per second over the window. */
    RATE;

    /**
     * The lowercase name used in tags and logs ({@code p95}, {@code error_ratio}, {@code rate}).
     */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    String format(double v) {
      return switch (this) {
        case P95 -> String.format(Locale.ROOT, "%.1f ms", v / 1e6);
        case ERROR_RATIO -> String.format(Locale.ROOT, "%.3f", v);
        case RATE -> String.format(Locale.ROOT, "%.3f/s", v);
      };
    }
  }

  /** Decides whether this instance pages a fire; thread-safe. */
  @FunctionalInterface
  public interface Pager {
    /** Whether this instance pages the fire of {@code key} (observation, endpoint, measure). */
    boolean claim(String key);

    /** Every fire is paged: for windows each instance holds itself. */
    static Pager always() {
      return key -> true;
    }
  }

  /**
   * One endpoint's measure as of the last evaluation. {@code here} tells whether this instance
   * evaluated it; with fleet-wide windows the others show what the instance that evaluates it
   * posted last.
   */
  public record State(
      String observation,
      Map<String, String> endpoint,
      Measure measure,
      double value,
      double baseline,
      double score,
      boolean firing,
      boolean paged,
      long evaluations,
      boolean here) {}

  private final Supplier<Map<String, KeyedWindows>> windows;
  private final List<Measure> measures;
  private final List<String> endpointTags;
  private final AnomalyDetectorConfig detector;
  private final double level;
  private final int maximumEndpoints;
  private final long minimumSamples;
  private final Pager pager;
  private final Consumer<EndpointAnomalyEvent> publisher;
  private final MeterRegistry registry;
  private final AnomalySharing sharing;
  private final AlertMonitor monitor = AlertMonitor.create();
  private final Map<String, Map<String, Endpoint>> watched = new LinkedHashMap<>();
  private final Map<String, Watch> byRule = new HashMap<>();
  private boolean fullLogged;

  /**
   * Alerts on the endpoints of {@code windows} (observation name to keyed window, keyed as {@link
   * ObservedWindows#keyValues} reads), publishing events to {@code publisher} and gauges to {@code
   * registry} (null for none).
   *
   * @throws IllegalArgumentException if a setting is out of range, naming its property
   */
  public EndpointAnomalies(
      Supplier<Map<String, KeyedWindows>> windows,
      RingtailAnomalyProperties properties,
      Pager pager,
      Consumer<EndpointAnomalyEvent> publisher,
      MeterRegistry registry) {
    this(windows, properties, pager, publisher, registry, AnomalySharing.IN_PROCESS);
  }

  /** As above, the endpoints read, evaluated and shared as {@code sharing} says. */
  EndpointAnomalies(
      Supplier<Map<String, KeyedWindows>> windows,
      RingtailAnomalyProperties properties,
      Pager pager,
      Consumer<EndpointAnomalyEvent> publisher,
      MeterRegistry registry,
      AnomalySharing sharing) {
    this.sharing = Objects.requireNonNull(sharing, "sharing");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.measures = List.copyOf(properties.getMeasures());
    this.endpointTags = List.copyOf(properties.getEndpointTags());
    this.level = properties.getLevel();
    this.maximumEndpoints = properties.getMaximumEndpoints();
    this.minimumSamples = properties.getMinimumSamples();
    this.pager = Objects.requireNonNull(pager, "pager");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.registry = registry;
    if (!(level > 0.0 && level <= 1.0)) {
      throw invalid("level", "between 0 exclusive and 1", level);
    }
    if (maximumEndpoints < 1) {
      throw invalid("maximum-endpoints", "positive", maximumEndpoints);
    }
    if (minimumSamples < 1) {
      throw invalid("minimum-samples", "positive", minimumSamples);
    }
    if (measures.isEmpty() || endpointTags.isEmpty()) {
      throw invalid(measures.isEmpty() ? "measures" : "endpoint-tags", "not empty", List.of());
    }
    try {
      this.detector = AnomalyDetectorConfig.builder().warmUp(properties.getWarmUp()).build();
    } catch (IllegalArgumentException e) {
      throw Checks.atProperty("ringtail.anomaly.warm-up", e);
    }
  }

  private static IllegalArgumentException invalid(String property, String rule, Object value) {
    return Checks.invalid("ringtail.anomaly." + property, rule, value);
  }

  /**
   * The monitor holding one anomaly rule per endpoint measure that this instance evaluates (named
   * {@code "<observation> <endpoint> <measure>"}): read a rule's state with {@link
   * AlertMonitor#snapshot}, or hear core's events with a listener. Evaluate it only through {@link
   * #evaluate()}, which reads the windows first: evaluated alone, every rule keeps its state.
   */
  public AlertMonitor monitor() {
    return monitor;
  }

  /**
   * Reads every endpoint's keys, evaluates the monitor, publishes what fired or resolved, and
   * returns those events (the ones this instance paged), in order.
   */
  public synchronized List<EndpointAnomalyEvent> evaluate() {
    Map<String, List<Endpoint>> read = new LinkedHashMap<>();
    windows
        .get()
        .forEach(
            (observation, keyed) -> {
              try {
                read.put(observation, read(observation, keyed));
              } catch (RuntimeException e) {
                LOG.log(
                    Level.WARNING,
                    "Anomaly alerts of " + observation + " could not be evaluated; state kept",
                    e);
              }
            });
    List<EndpointAnomalyEvent> events = new ArrayList<>(0);
    List<AlertEvent> evaluated = List.of();
    try {
      if (!read.isEmpty()) { // with nothing read (Redis down) every rule keeps its state anyway
        evaluated = monitor.evaluate();
      }
    } finally {
      unread(); // an evaluation of the monitor alone keeps every state
    }
    for (AlertEvent e : evaluated) {
      Watch w = byRule.get(e.rule().name());
      EndpointAnomalyEvent event = w == null ? null : w.on(e);
      if (event != null) {
        events.add(event);
      }
    }
    read.forEach(this::afterEvaluation);
    for (EndpointAnomalyEvent event : events) {
      LOG.log(Level.WARNING, event.toString());
      try {
        publisher.accept(event);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Publishing " + event + " failed", e);
      }
    }
    return events;
  }

  /** Every endpoint's window fails until read again: its rules keep their state. */
  private void unread() {
    watched.values().forEach(endpoints -> endpoints.values().forEach(e -> e.window.current = null));
  }

  /**
   * Reads {@code observation}'s keys once, pools them into its endpoints (watching new ones while
   * there is room), hands each endpoint to this instance or away from it, and shows each endpoint
   * evaluated here its pooled keys. The endpoints evaluated here.
   */
  private List<Endpoint> read(String observation, KeyedWindows keyed) {
    Map<String, Endpoint> endpoints =
        watched.computeIfAbsent(observation, o -> new LinkedHashMap<>());
    Map<String, Pool> pools = new LinkedHashMap<>();
    double windowSeconds = keyed.windowConfig().length().toNanos() / 1e9;
    for (Map.Entry<String, ? extends WindowSnapshot> e : sharing.read(keyed).entrySet()) {
      Map<String, String> tags = ObservedWindows.keyValues(e.getKey());
      Map<String, String> endpoint = new LinkedHashMap<>();
      for (String name : endpointTags) {
        endpoint.put(name, tags.getOrDefault(name, "none"));
      }
      String id = endpoint.toString();
      if (!endpoints.containsKey(id)) {
        if (endpoints.size() >= maximumEndpoints) {
          if (!fullLogged) {
            fullLogged = true;
            LOG.log(
                Level.INFO,
                "ringtail.anomaly.maximum-endpoints ("
                    + maximumEndpoints
                    + ") reached on "
                    + observation
                    + "; later endpoints are not watched");
          }
          continue;
        }
        endpoints.put(id, new Endpoint(observation, endpoint, keyed, windowSeconds));
      }
      pools.computeIfAbsent(id, i -> new Pool()).add(e.getKey(), e.getValue(), isError(tags));
    }
    Map<String, String> posted = null; // read once, when an endpoint comes to this instance
    List<Endpoint> here = new ArrayList<>();
    for (Map.Entry<String, Endpoint> e : endpoints.entrySet()) {
      Pool pool = pools.getOrDefault(e.getKey(), Pool.EMPTY);
      // the instance owning the endpoint's first key evaluates it; while it has no samples
      // anywhere, whoever evaluated it goes on (noting that it has none)
      Endpoint endpoint = e.getValue();
      boolean evaluates = pool.first == null ? endpoint.here : sharing.evaluates(keyed, pool.first);
      if (!evaluates) {
        endpoint.leave();
        continue;
      }
      if (!endpoint.here) {
        posted = posted != null ? posted : postedOf(observation);
        endpoint.take(posted);
      }
      endpoint.window.current = pool.snapshot();
      endpoint.first = pool.first;
      here.add(endpoint);
    }
    return here;
  }

  /** Updates the gauges and counts of the endpoints evaluated here, and posts their states. */
  private void afterEvaluation(String observation, List<Endpoint> here) {
    Map<String, String> post = new LinkedHashMap<>();
    for (Endpoint endpoint : here) {
      for (Watch w : endpoint.watches) {
        RuleSnapshot s = w.evaluated();
        if (endpoint.first != null) {
          post.put(w.key, new AnomalySharing.Posted(s, w.paged, w.evaluations).encode());
        }
      }
    }
    if (!post.isEmpty()) {
      try {
        sharing.post(observation, post);
      } catch (RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "Anomaly states of " + observation + " not posted; other instances show older ones",
            e);
      }
    }
  }

  /** The states posted for {@code observation}'s measures; none if they cannot be read now. */
  private Map<String, String> postedOf(String observation) {
    try {
      return sharing.posted(observation);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Posted anomaly states of " + observation + " unreadable", e);
      return Map.of();
    }
  }

  private static boolean isError(Map<String, String> tags) {
    String outcome = tags.get("outcome");
    if (outcome != null) {
      return outcome.equals("SERVER_ERROR");
    }
    String status = tags.get("status");
    return status != null && status.startsWith("5");
  }

  /**
   * Every watched endpoint's measures as of the last evaluation, by observation: as this instance
   * evaluated them, or (fleet-wide) as the instance that evaluates them posted them last.
   */
  public synchronized List<State> states() {
    List<State> out = new ArrayList<>();
    watched.forEach(
        (observation, endpoints) -> {
          Map<String, String> posted = null;
          for (Endpoint e : endpoints.values()) {
            if (!e.here && posted == null) {
              posted = postedOf(observation);
            }
            for (Watch w : e.watches) {
              out.add(
                  e.here
                      ? w.state(monitor.snapshot(w.key), w.paged, w.evaluations, true)
                      : w.state(AnomalySharing.Posted.decode(w.key, posted.get(w.key))));
            }
          }
        });
    return out;
  }

  @Override
  public String toString() {
    return "EndpointAnomalies" + measures + "[level=" + level + ", " + detector + "]";
  }

  /** One endpoint: its key values, its window view and one watch per measure. */
  private final class Endpoint {
    final List<Watch> watches = new ArrayList<>();
    final EndpointWindow window;
    boolean here; // evaluated here: its rules are on the monitor
    String first; // its first key at the last read

    Endpoint(
        String observation,
        Map<String, String> endpoint,
        KeyedWindows keyed,
        double windowSeconds) {
      this.window = new EndpointWindow(observation, keyed);
      Map<String, String> tags = Collections.unmodifiableMap(endpoint);
      for (Measure m : measures) {
        watches.add(new Watch(observation, tags, m, window, windowSeconds));
      }
      if (sharing == AnomalySharing.IN_PROCESS) {
        take(Map.of());
      }
    }

    /** Comes to this instance: its rules go on from the states posted (none: afresh). */
    void take(Map<String, String> posted) {
      for (Watch w : watches) {
        w.take(AnomalySharing.Posted.decode(w.key, posted.get(w.key)));
      }
      here = true;
    }

    /** Another instance evaluates it: its rules and gauges leave this one. */
    void leave() {
      if (here) {
        for (Watch w : watches) {
          monitor.remove(w.key);
          w.exported(false);
        }
        here = false;
      }
    }
  }

  /** One endpoint's measure: its rule, whether it paged, its gauges. Guarded by the outer lock. */
  private final class Watch {
    final String observation;
    final Map<String, String> endpoint;
    final Measure measure;
    final String key;
    final AlertRule rule;
    volatile double score = Double.NaN;
    volatile boolean firing;
    boolean paged;
    long evaluations;

    private List<Meter> meters = List.of();

    Watch(
        String observation,
        Map<String, String> endpoint,
        Measure measure,
        EndpointWindow window,
        double windowSeconds) {
      this.observation = observation;
      this.endpoint = endpoint;
      this.measure = measure;
      this.key = observation + " " + endpoint + " " + measure.label();
      AlertRule.Builder b =
          AlertRule.anomaly(key, window, new Read(measure, windowSeconds), detector)
              .atLeast(level)
              .resolveWhenBack();
      if (measure != Measure.RATE) { // a rate that drops is an anomaly too; it has no minimum
        b.onlyAboveBaseline().minimumSamples(minimumSamples);
      }
      this.rule = b.build();
      byRule.put(key, this);
    }

    /**
     * Adds the rule, going on from {@code posted} if it says anything (a fire handed over, with
     * whether it was paged); its detector starts afresh.
     */
    void take(AnomalySharing.Posted posted) {
      monitor.remove(key);
      paged = false;
      evaluations = 0;
      if (posted.evaluations() > 0) {
        try {
          monitor.add(rule, posted.rule());
          paged = posted.paged();
          evaluations = posted.evaluations();
          return;
        } catch (IllegalArgumentException e) {
          LOG.log(Level.WARNING, "Posted state of " + key + " unusable; starting afresh", e);
        }
      }
      monitor.add(rule);
    }

    /** After an evaluation here: the gauges' values, the evaluations with data; the state. */
    RuleSnapshot evaluated() {
      exported(true);
      RuleSnapshot s = monitor.snapshot(key);
      score = s.value();
      firing = s.firing();
      if (!Double.isNaN(s.measured())) {
        evaluations++;
      }
      return s;
    }

    /** The rule fired or resolved: the event this instance pages, or null. */
    EndpointAnomalyEvent on(AlertEvent e) {
      RuleSnapshot s = monitor.snapshot(key);
      if (e.type() == AlertEvent.Type.FIRED) {
        paged = claim();
        return paged ? event(EndpointAnomalyEvent.Type.FIRED, s) : quiet("fired", s);
      }
      boolean wasPaged = paged;
      paged = false;
      return wasPaged ? event(EndpointAnomalyEvent.Type.RESOLVED, s) : quiet("resolved", s);
    }

    private boolean claim() {
      try {
        return pager.claim(key);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Could not claim the page of " + key + "; paging anyway", e);
        return true;
      }
    }

    private EndpointAnomalyEvent event(EndpointAnomalyEvent.Type type, RuleSnapshot s) {
      return new EndpointAnomalyEvent(
          type, observation, endpoint, measure, s.value(), s.measured(), s.baseline());
    }

    private EndpointAnomalyEvent quiet(String what, RuleSnapshot s) {
      LOG.log(
          Level.INFO,
          () ->
              "Anomaly "
                  + what
                  + " on "
                  + key
                  + " = "
                  + measure.format(s.measured())
                  + ", paged by another instance");
      return null;
    }

    /**
     * Registers the gauges while this instance evaluates the measure and removes them while another
     * does, so that each gauge exists once in a fleet.
     */
    void exported(boolean here) {
      if (registry == null || here == !meters.isEmpty()) {
        return;
      }
      if (!here) {
        meters.forEach(registry::remove);
        meters = List.of();
        return;
      }
      Tags tags = Tags.of("window", observation, "measure", measure.label());
      for (Map.Entry<String, String> t : endpoint.entrySet()) {
        tags = tags.and(t.getKey(), t.getValue());
      }
      meters =
          List.of(
              Gauge.builder("ringtail.anomaly.score", this, w -> w.score)
                  .description(
                      "Anomaly score of an endpoint's measure at the last evaluation, 0 to 1")
                  .tags(tags)
                  .strongReference(true)
                  .register(registry),
              Gauge.builder("ringtail.anomaly.firing", this, w -> w.firing ? 1 : 0)
                  .description("1 while an endpoint's measure is firing")
                  .tags(tags)
                  .strongReference(true)
                  .register(registry));
    }

    State state(RuleSnapshot s, boolean paged, long evaluations, boolean here) {
      return new State(
          observation,
          endpoint,
          measure,
          s.measured(),
          s.baseline(),
          s.value(),
          s.firing(),
          paged,
          evaluations,
          here);
    }

    State state(AnomalySharing.Posted p) {
      return state(p.rule(), p.paged(), p.evaluations(), false);
    }
  }
}
