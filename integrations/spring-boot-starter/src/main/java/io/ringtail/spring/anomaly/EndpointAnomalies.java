package io.ringtail.spring.anomaly;

import static java.lang.Double.NaN;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.ringtail.WindowSnapshot;
import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.ObservedWindows;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Anomaly alerts on every endpoint of the {@link ObservedWindows}, by configuration: at each {@link
 * #evaluate()} every endpoint's measures (its P95, its share of 5xx answers, its request rate) are
 * read from the observation's keyed window and scored by a detector of the endpoint's own (core's
 * {@link AnomalyDetector}, built from one {@link AnomalyDetectorConfig}).
 *
 * <p>An endpoint is a combination of the configured key values ({@code method} and {@code uri} by
 * default); the keys that differ only in other values ({@code status}, {@code outcome}) are pooled
 * into it. At most {@code maximumEndpoints} endpoints per observation are watched, each with one
 * detector (about 1.5 KiB) and two gauges per measure.
 *
 * <p><b>Firing and resolving.</b> A measure fires when its score reaches the alarm level and (for
 * P95 and the error ratio) it is above its baseline, an exponentially weighted mean of its values
 * while not firing. It resolves once it is back at least half-way from the value that fired to the
 * baseline. Each fire and resolve is published as an {@link EndpointAnomalyEvent} to {@code
 * publisher} and logged at WARNING; the score is the gauge {@code ringtail.anomaly.score} and the
 * state the gauge {@code ringtail.anomaly.firing} (tags {@code window}, {@code measure} and the
 * endpoint's key values).
 *
 * <p><b>Fleet.</b> With fleet-wide windows each endpoint is evaluated once for the fleet: by the
 * instance that merges the group of the endpoint's first key (in key order), which reads the
 * fleet's summaries (one small read per evaluation, no distribution) and posts its measures' states
 * to a Redis {@code StateBoard}; every other instance shows those states ({@link #states()}, {@code
 * /actuator/ringtail}) and exports no gauge for the endpoint, so each gauge exists once in the
 * fleet. When the group's lease moves, the next evaluator continues from the posted state
 * (baseline, firing, paged: a fire is paged once and resolved once) while its own detector warms up
 * again. {@code pager} decides whether a fire is paged: {@link Pager#always()} in-process, a
 * fleet-wide claim (one per endpoint and measure per dedupe period, from a Redis rate limiter) with
 * a fleet, for the moment of a handover when two instances may both evaluate; an instance whose
 * claim is refused keeps the state but publishes neither the fire nor its resolve.
 *
 * <p>Thread-safe: evaluations are serialised; {@link #states()} may be called from any thread.
 */
public final class EndpointAnomalies {
  private static final System.Logger LOG = System.getLogger(EndpointAnomalies.class.getName());
  private static final double BASELINE_WEIGHT = 0.1;

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

  /**
   * How the endpoints of one kind of window are read, who evaluates each, and where the
   * evaluations' states are shared: in-process, this instance reads and evaluates all of them;
   * fleet-wide, each endpoint is evaluated by one instance and its state posted for the others.
   */
  interface Sharing {
    /** Reads and evaluates everything, shares nothing: windows this instance holds itself. */
    Sharing IN_PROCESS =
        new Sharing() {
          @Override
          public Map<String, ? extends WindowSnapshot> read(KeyedWindows keyed) {
            return keyed.snapshots();
          }

          @Override
          public boolean evaluates(KeyedWindows keyed, String key) {
            return true;
          }

          @Override
          public void post(String observation, Map<String, String> states) {}

          @Override
          public Map<String, String> posted(String observation) {
            return Map.of();
          }
        };

    /** Every key's numbers in the window now. */
    Map<String, ? extends WindowSnapshot> read(KeyedWindows keyed);

    /**
     * Whether this instance evaluates the endpoint whose first key in {@code keyed} is {@code key}.
     */
    boolean evaluates(KeyedWindows keyed, String key);

    /** Posts the states of the measures this instance evaluated, by {@link Watch#key}. */
    void post(String observation, Map<String, String> states);

    /** The states posted by the instances that evaluate {@code observation}'s endpoints. */
    Map<String, String> posted(String observation);
  }

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
  private final Sharing sharing;
  private final Map<String, Map<String, Endpoint>> watched = new LinkedHashMap<>();
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
    this(windows, properties, pager, publisher, registry, Sharing.IN_PROCESS);
  }

  /** As above, the endpoints read, evaluated and shared as {@code sharing} says. */
  EndpointAnomalies(
      Supplier<Map<String, KeyedWindows>> windows,
      RingtailAnomalyProperties properties,
      Pager pager,
      Consumer<EndpointAnomalyEvent> publisher,
      MeterRegistry registry,
      Sharing sharing) {
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
   * Scores every endpoint's measures now, publishes what fired or resolved, and returns those
   * events (the ones this instance paged), in order.
   */
  public synchronized List<EndpointAnomalyEvent> evaluate() {
    List<EndpointAnomalyEvent> events = new ArrayList<>(0);
    windows
        .get()
        .forEach(
            (observation, keyed) -> {
              try {
                evaluate(observation, keyed, events);
              } catch (RuntimeException e) {
                LOG.log(
                    Level.WARNING,
                    "Anomaly alerts of " + observation + " could not be evaluated; state kept",
                    e);
              }
            });
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

  private void evaluate(String observation, KeyedWindows keyed, List<EndpointAnomalyEvent> out) {
    Map<String, Endpoint> endpoints =
        watched.computeIfAbsent(observation, o -> new LinkedHashMap<>());
    Map<String, Pool> pools = new LinkedHashMap<>();
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
        endpoints.put(id, new Endpoint(observation, endpoint));
      }
      pools.computeIfAbsent(id, i -> new Pool()).add(e.getKey(), e.getValue(), isError(tags));
    }
    double windowSeconds = keyed.windowConfig().length().toNanos() / 1e9;
    Map<String, String> posted = null; // read once, when an endpoint comes to this instance
    Map<String, String> post = new LinkedHashMap<>();
    for (Map.Entry<String, Endpoint> e : endpoints.entrySet()) {
      Pool pool = pools.getOrDefault(e.getKey(), Pool.EMPTY);
      // the instance owning the endpoint's first key evaluates it; while it has no samples
      // anywhere, whoever evaluated it goes on (noting that it has none)
      Endpoint endpoint = e.getValue();
      boolean here = pool.first == null ? endpoint.here : sharing.evaluates(keyed, pool.first);
      if (!here) {
        endpoint.here = false;
        endpoint.watches.forEach(w -> w.exported(false));
        continue;
      }
      if (!endpoint.here) {
        posted = posted != null ? posted : postedOf(observation);
        for (Watch w : endpoint.watches) {
          w.takeOver(posted.get(w.key));
        }
        endpoint.here = true;
      }
      for (Watch w : endpoint.watches) {
        w.exported(true);
        double value =
            switch (w.measure) {
              case RATE -> pool.count / windowSeconds;
              case ERROR_RATIO ->
                  pool.count < minimumSamples ? Double.NaN : (double) pool.errors / pool.count;
              case P95 -> pool.count < minimumSamples ? Double.NaN : pool.percentile(0.95);
            };
        EndpointAnomalyEvent event = w.next(value);
        if (event != null) {
          out.add(event);
        }
        if (pool.first != null) {
          post.put(w.key, w.encode());
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
              out.add(e.here ? w.state() : w.stateFrom(posted.get(w.key)));
            }
          }
        });
    return out;
  }

  @Override
  public String toString() {
    return "EndpointAnomalies" + measures + "[level=" + level + ", " + detector + "]";
  }

  /** The snapshots of one endpoint's keys at one evaluation. */
  private static final class Pool {
    static final Pool EMPTY = new Pool();
    final List<WindowSnapshot> parts = new ArrayList<>(2);
    long count;
    long errors;
    String first; // the least key with samples: the one whose owner evaluates the endpoint

    void add(String key, WindowSnapshot s, boolean error) {
      if (s.count() > 0) {
        first = first == null || key.compareTo(first) < 0 ? key : first;
        parts.add(s);
        count += s.count();
        errors += error ? s.count() : 0;
      }
    }

    /**
     * The nearest-rank percentile of the pooled samples: the smallest value at or below which
     * {@code ceil(phi * count)} of them lie, searched by bisection over each part's {@link
     * WindowSnapshot#fractionAbove} (as exact as the parts' resolution).
     */
    double percentile(double phi) {
      if (parts.size() == 1) {
        return parts.get(0).valueAtPercentile(phi * 100);
      }
      long rank = (long) Math.ceil(phi * count);
      long lo = Long.MAX_VALUE;
      long hi = Long.MIN_VALUE;
      for (WindowSnapshot s : parts) {
        lo = Math.min(lo, (long) Math.floor(s.min()));
        hi = Math.max(hi, (long) Math.ceil(s.max()));
      }
      while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        long atOrBelow = 0;
        for (WindowSnapshot s : parts) {
          atOrBelow += Math.round(s.count() * (1.0 - s.fractionAbove(mid)));
        }
        if (atOrBelow >= rank) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      return lo;
    }
  }

  /** One endpoint: its key values and one watch per measure. */
  private final class Endpoint {
    final List<Watch> watches = new ArrayList<>();
    boolean here = sharing == Sharing.IN_PROCESS; // evaluated here at the last evaluation

    Endpoint(String observation, Map<String, String> endpoint) {
      Map<String, String> tags = Collections.unmodifiableMap(endpoint);
      for (Measure m : measures) {
        watches.add(new Watch(observation, tags, m));
      }
    }
  }

  /** One endpoint's measure: its detector, baseline and alert state. Guarded by the outer lock. */
  private final class Watch {
    final String observation;
    final Map<String, String> endpoint;
    final Measure measure;
    final AnomalyDetector scorer = detector.newDetector();
    final String key;
    volatile double score = Double.NaN;
    volatile boolean firing;
    double value = Double.NaN;
    double baseline = Double.NaN;
    double firedValue;
    boolean paged;
    long evaluations;

    private List<Meter> meters = List.of();

    Watch(String observation, Map<String, String> endpoint, Measure measure) {
      this.observation = observation;
      this.endpoint = endpoint;
      this.measure = measure;
      this.key = observation + " " + endpoint + " " + measure.label();
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

    /** Scores {@code v} (NaN: no data, shown to nobody); the event this instance pages, or null. */
    EndpointAnomalyEvent next(double v) {
      value = v;
      if (Double.isNaN(v)) {
        score = Double.NaN;
        return null;
      }
      evaluations++;
      double s = scorer.score(v);
      score = s;
      if (!firing) {
        boolean worse = measure == Measure.RATE || v > baseline; // false while no baseline
        if (s >= level && worse && !Double.isNaN(baseline)) {
          firing = true;
          firedValue = v;
          paged = claim();
          return paged ? event(EndpointAnomalyEvent.Type.FIRED, s, v) : quiet("fired", s, v);
        }
        baseline = Double.isNaN(baseline) ? v : baseline + BASELINE_WEIGHT * (v - baseline);
        return null;
      }
      if (Math.abs(v - baseline) <= Math.abs(firedValue - baseline) / 2) {
        firing = false;
        boolean wasPaged = paged;
        paged = false;
        return wasPaged ? event(EndpointAnomalyEvent.Type.RESOLVED, s, v) : quiet("resolved", s, v);
      }
      return null;
    }

    private boolean claim() {
      try {
        return pager.claim(key);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Could not claim the page of " + key + "; paging anyway", e);
        return true;
      }
    }

    private EndpointAnomalyEvent event(EndpointAnomalyEvent.Type type, double s, double v) {
      return new EndpointAnomalyEvent(type, observation, endpoint, measure, s, v, baseline);
    }

    private EndpointAnomalyEvent quiet(String what, double s, double v) {
      LOG.log(
          Level.INFO,
          () ->
              "Anomaly "
                  + what
                  + " on "
                  + key
                  + " = "
                  + measure.format(v)
                  + ", paged by another instance");
      return null;
    }

    State state() {
      return new State(
          observation, endpoint, measure, value, baseline, score, firing, paged, evaluations, true);
    }

    /** The state as posted: value, baseline, score, fired value, firing, paged, evaluations. */
    String encode() {
      return value
          + " "
          + baseline
          + " "
          + score
          + " "
          + firedValue
          + " "
          + (firing ? 1 : 0)
          + " "
          + (paged ? 1 : 0)
          + " "
          + evaluations;
    }

    /** The state another instance posted ({@code null}: none yet), as this instance shows it. */
    State stateFrom(String posted) {
      String[] f = posted == null ? null : posted.split(" ");
      if (f == null || f.length != 7) {
        return new State(observation, endpoint, measure, NaN, NaN, NaN, false, false, 0, false);
      }
      try {
        return new State(
            observation,
            endpoint,
            measure,
            Double.parseDouble(f[0]),
            Double.parseDouble(f[1]),
            Double.parseDouble(f[2]),
            f[4].equals("1"),
            f[5].equals("1"),
            Long.parseLong(f[6]),
            false);
      } catch (NumberFormatException e) {
        return new State(observation, endpoint, measure, NaN, NaN, NaN, false, false, 0, false);
      }
    }

    /**
     * Continues from the state the previous evaluator posted: its baseline, and whether it fires
     * and paged (so a fire is neither paged twice nor left unresolved). The detector itself starts
     * again, warming up on this instance's evaluations.
     */
    void takeOver(String posted) {
      State s = stateFrom(posted);
      if (s.evaluations() == 0) {
        return;
      }
      baseline = s.baseline();
      firing = s.firing();
      paged = s.paged();
      firedValue = Double.parseDouble(posted.split(" ")[3]);
      evaluations = s.evaluations();
    }
  }
}
