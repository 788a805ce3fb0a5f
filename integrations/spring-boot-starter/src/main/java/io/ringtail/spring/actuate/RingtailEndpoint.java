package io.ringtail.spring.actuate;

import io.ringtail.RollingWindow;
import io.ringtail.WindowConventions;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.RingtailEndpointSection;
import io.ringtail.spring.RingtailProperties;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code ringtail} Actuator endpoint, read-only: {@code /actuator/ringtail} lists the windows
 * (every {@link RollingWindow} and {@link KeyedWindows} bean, and the observation windows: {@link
 * ObservedWindows}), and {@code /actuator/ringtail/{name}} shows one window's snapshot as of now.
 * Every {@link RingtailEndpointSection} bean adds its section to the list: with anomaly alerts
 * ({@code ringtail.anomaly.*}) each watched endpoint's measures under {@code anomalies}, with
 * service levels declared by {@code ringtail.slo.*} each one's objectives, budget, burn rates and
 * alerts under {@code serviceLevels}. Like every Actuator endpoint but health, it is not exposed
 * over HTTP until {@code management.endpoints.web.exposure.include} names it.
 *
 * <p>Values are as recorded (nanoseconds for latency windows); statistics of an empty window are
 * null. A keyed window shows its keys with the most samples first, at most {@code maximumKeys}.
 */
@Endpoint(id = "ringtail")
public class RingtailEndpoint {
  private final ListableBeanFactory beans;
  private final ObjectProvider<? extends ObservedWindows> observations;
  private final double[] percentiles;
  private final int maximumKeys;

  /** An endpoint over the windows of {@code beans}, showing {@code percentiles} (fractions). */
  public RingtailEndpoint(
      ListableBeanFactory beans,
      ObjectProvider<? extends ObservedWindows> observations,
      List<Double> percentiles,
      int maximumKeys) {
    this(beans, observations, RingtailProperties.conventionsOf(percentiles, maximumKeys));
  }

  /**
   * An endpoint over the windows of {@code beans}, showing {@code conventions}' percentiles and at
   * most its maximum keys per keyed window.
   */
  public RingtailEndpoint(
      ListableBeanFactory beans,
      ObjectProvider<? extends ObservedWindows> observations,
      WindowConventions conventions) {
    this.beans = Objects.requireNonNull(beans, "beans");
    this.observations = Objects.requireNonNull(observations, "observations");
    this.percentiles = conventions.percentiles();
    this.maximumKeys = conventions.maximumKeys();
  }

  /** Every window: its name, kind ({@code window}, {@code keyed}, {@code observation}), length. */
  @ReadOperation
  public Map<String, Object> windows() {
    List<Map<String, Object>> out = new ArrayList<>();
    beans
        .getBeansOfType(RollingWindow.class, false, false)
        .forEach((name, w) -> out.add(entry(name, "window", w.length().toString(), null)));
    beans
        .getBeansOfType(KeyedWindows.class, false, false)
        .forEach(
            (name, k) ->
                out.add(
                    entry(name, "keyed", k.windowConfig().length().toString(), k.estimatedKeys())));
    ObservedWindows obs = observations.getIfAvailable();
    if (obs != null) {
      obs.windows()
          .forEach(
              (name, k) ->
                  out.add(
                      entry(
                          name,
                          "observation",
                          k.windowConfig().length().toString(),
                          k.estimatedKeys())));
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("windows", out);
    beans
        .getBeanProvider(RingtailEndpointSection.class)
        .orderedStream()
        .forEach(section -> result.put(section.sectionName(), section.section()));
    return result;
  }

  /** One window's snapshot now, or 404 if no window has that name. */
  @ReadOperation
  public Map<String, Object> window(@Selector String name) {
    Map<String, RollingWindow> windows = beans.getBeansOfType(RollingWindow.class, false, false);
    if (windows.containsKey(name)) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("name", name);
      out.put("kind", "window");
      out.put("snapshot", snapshot(windows.get(name).snapshot()));
      return out;
    }
    Map<String, KeyedWindows> keyed = beans.getBeansOfType(KeyedWindows.class, false, false);
    if (keyed.containsKey(name)) {
      return keyedOut(name, "keyed", keyed.get(name), false);
    }
    ObservedWindows obs = observations.getIfAvailable();
    if (obs != null && obs.windows().containsKey(name)) {
      return keyedOut(name, "observation", obs.windows().get(name), true);
    }
    return null;
  }

  private Map<String, Object> keyedOut(
      String name, String kind, KeyedWindows keyed, boolean tagged) {
    Map<String, WindowSnapshot> all = keyed.snapshots();
    List<Map.Entry<String, WindowSnapshot>> keys =
        new ArrayList<>(
            WindowConventions.busiest(all, maximumKeys, WindowSnapshot::count, k -> false)
                .entrySet());
    keys.sort(
        Comparator.comparingLong((Map.Entry<String, WindowSnapshot> e) -> e.getValue().count())
            .reversed());
    List<Map<String, Object>> shown = new ArrayList<>();
    for (Map.Entry<String, WindowSnapshot> e : keys) {
      Map<String, Object> k = new LinkedHashMap<>();
      if (tagged) {
        k.put("tags", ObservedWindows.keyValues(e.getKey()));
      } else {
        k.put("key", e.getKey());
      }
      k.put("snapshot", snapshot(e.getValue()));
      shown.add(k);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", name);
    out.put("kind", kind);
    out.put("keysHeld", all.size());
    out.put("keys", shown);
    return out;
  }

  private Map<String, Object> snapshot(WindowSnapshot s) {
    boolean empty = s.isEmpty();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("count", s.count());
    out.put("rejected", s.rejected());
    out.put("sum", s.sum());
    out.put("mean", empty ? null : s.mean());
    out.put("min", empty ? null : s.min());
    out.put("max", empty ? null : s.max());
    Map<String, Object> ps = new LinkedHashMap<>();
    for (double p : percentiles) {
      ps.put(
          WindowConventions.percentileLabel(p),
          empty ? null : s.valueAtPercentile(WindowConventions.percentileOf(p)));
    }
    out.put("percentiles", ps);
    s.totals()
        .ifPresent(
            t -> {
              Map<String, Object> totals = new LinkedHashMap<>();
              totals.put("count", t.count());
              totals.put("sum", t.sum());
              totals.put("rejected", t.rejected());
              out.put("totals", totals);
            });
    return out;
  }

  private static Map<String, Object> entry(String name, String kind, String length, Long keys) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("name", name);
    e.put("kind", kind);
    e.put("length", length);
    if (keys != null) {
      e.put("keys", keys);
    }
    return e;
  }
}
