package io.ringtail.examples.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringtail.slo.AlertStatus;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.ServiceLevelStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The simulated service's service level ({@code io.ringtail.slo}) as the dashboard shows it: the
 * declaration, and once a sample the status of each objective, which alerts fire and since when.
 * The period and alerts are the SRE workbook's, {@value #SPEEDUP} times shorter, so that a demo of
 * a minute burns a visible part of the budget. Sampled by one thread; {@link #toJson} from any.
 */
final class DashboardSlo {
  /** How many times shorter than the workbook's the period and every alert window are. */
  static final int SPEEDUP = 1000;

  /** The workbook's compliance period, which {@link #PERIOD} stands for. */
  static final Duration WORKBOOK_PERIOD = Duration.ofDays(30);

  /** The compliance period: 30 days, {@value #SPEEDUP} times shorter (43 min 12 s). */
  static final Duration PERIOD = WORKBOOK_PERIOD.dividedBy(SPEEDUP);

  static final String LATENCY = "fast";
  static final String AVAILABILITY = "available";
  static final double LATENCY_TARGET = 0.99;
  static final double AVAILABILITY_TARGET = 0.999;

  private final ServiceLevel serviceLevel;
  private final String scope;
  private final Function<String, Integer> owner;
  private final Map<String, Long> firingSince = new HashMap<>();
  private final ArrayDeque<String> recentEvents = new ArrayDeque<>();
  private volatile ServiceLevelStatus latest;
  private volatile Map<String, Long> since = Map.of();
  private volatile Map<String, Integer> owners = Map.of();

  /**
   * @param serviceLevel what the page reads (in a fleet, a reader's view of the fleet's counts)
   * @param scope whose requests it counts, for people
   * @param owner per objective, the worker that should page for it, or null (none, in-process)
   */
  DashboardSlo(ServiceLevel serviceLevel, String scope, Function<String, Integer> owner) {
    this.serviceLevel = serviceLevel;
    this.scope = scope;
    this.owner = owner;
  }

  /**
   * The declared service level: 99 % of requests at most {@code sloMillis}, 99.9 % not failed, over
   * the workbook's period and alerts {@value #SPEEDUP} times shorter. Every window is then a whole
   * multiple of 60 ms, as a fleet service level needs (30 days in 720, one hour, would make the
   * 5-minute window 416.67 ms).
   */
  static ServiceLevelConfig config(String name, double sloMillis) {
    List<BurnRateAlert> alerts = new ArrayList<>();
    for (BurnRateAlert a : BurnRateAlert.workbook()) {
      alerts.add(
          BurnRateAlert.of(
              a.severity(),
              a.factor(),
              a.longWindow().dividedBy(SPEEDUP),
              a.shortWindow().dividedBy(SPEEDUP)));
    }
    return ServiceLevelConfig.builder(name)
        .latency(LATENCY, Duration.ofNanos(Math.round(sloMillis * 1e6)), LATENCY_TARGET)
        .availability(AVAILABILITY, AVAILABILITY_TARGET)
        .period(PERIOD)
        .alerts(alerts)
        .build();
  }

  ServiceLevelConfig config() {
    return serviceLevel.config();
  }

  /**
   * Reads the status and notes the alerts that started or stopped firing since the last sample;
   * returns those events, described for people.
   */
  ServiceLevelStatus sample(long elapsedNanos, List<String> events) {
    ServiceLevelStatus status = serviceLevel.status();
    Map<String, Integer> owned = new HashMap<>();
    for (ObjectiveStatus o : status.objectives()) {
      String objective = o.objective().name();
      Integer w = owner.apply(objective);
      if (w != null) {
        owned.put(objective, w);
      }
      for (AlertStatus a : o.alerts()) {
        String key = key(objective, a.alert().name());
        boolean was = firingSince.containsKey(key);
        if (a.firing() && !was) {
          firingSince.put(key, elapsedNanos);
          events.add(event("FIRED", o, a));
        } else if (!a.firing() && was) {
          firingSince.remove(key);
          events.add(event("RESOLVED", o, a));
        }
      }
    }
    synchronized (this) {
      for (String e : events) {
        if (recentEvents.size() == 10) {
          recentEvents.removeFirst();
        }
        recentEvents.addLast(String.format(Locale.ROOT, "%.0f s: %s", elapsedNanos / 1e9, e));
      }
    }
    since = Map.copyOf(firingSince);
    owners = Map.copyOf(owned);
    latest = status;
    return status;
  }

  private static String key(String objective, String alert) {
    return objective + "/" + alert;
  }

  private static String event(String type, ObjectiveStatus o, AlertStatus a) {
    return String.format(
        Locale.ROOT,
        "%s %s %s/%s (burn rate %.1f over %s and %s, above %s)",
        type,
        a.alert().severity().label(),
        o.objective().name(),
        a.alert().name(),
        a.value(),
        seconds(a.alert().longWindow()),
        seconds(a.alert().shortWindow()),
        trim(a.alert().factor()));
  }

  /** The most severe alert firing in the latest status: "page", "ticket" or "ok". */
  String state() {
    ServiceLevelStatus s = latest;
    if (s == null) {
      return "ok";
    }
    boolean ticket = false;
    for (ObjectiveStatus o : s.objectives()) {
      for (AlertStatus a : o.firing()) {
        if (a.alert().severity() == BurnRateAlert.Severity.PAGE) {
          return "page";
        }
        ticket = true;
      }
    }
    return ticket ? "ticket" : "ok";
  }

  /** The latest status, or null before the first sample. */
  ServiceLevelStatus latest() {
    return latest;
  }

  /** The {@code slo} object of the page's JSON. */
  ObjectNode toJson(JsonNodeFactory f) {
    ServiceLevelConfig config = serviceLevel.config();
    ObjectNode root = f.objectNode();
    root.put("name", config.name());
    root.put("source", "io.ringtail.slo");
    root.put("scope", scope);
    root.put("speedup", SPEEDUP);
    root.put("periodSeconds", PERIOD.toMillis() / 1e3);
    root.put("standsForPeriod", label(WORKBOOK_PERIOD));
    root.put("state", state());
    ArrayNode alerts = root.putArray("alerts");
    for (BurnRateAlert a : config.alerts()) {
      ObjectNode o = alerts.addObject();
      o.put("name", a.name());
      o.put("severity", a.severity().label());
      o.put("factor", a.factor());
      o.put("longWindowSeconds", a.longWindow().toMillis() / 1e3);
      o.put("shortWindowSeconds", a.shortWindow().toMillis() / 1e3);
      o.put(
          "standsFor",
          label(a.longWindow().multipliedBy(SPEEDUP))
              + " / "
              + label(a.shortWindow().multipliedBy(SPEEDUP)));
      o.put("budgetConsumed", a.budgetConsumed(config.period()));
    }
    ServiceLevelStatus status = latest;
    Map<String, Long> firing = since;
    Map<String, Integer> owned = owners;
    ArrayNode objectives = root.putArray("objectives");
    for (Objective objective : config.objectives()) {
      ObjectNode o = objectives.addObject();
      o.put("name", objective.name());
      o.put("kind", objective.kind().name().toLowerCase(Locale.ROOT));
      o.put("target", objective.target());
      objective.threshold().ifPresent(t -> o.put("thresholdMillis", t.toNanos() / 1e6));
      o.put("description", describe(objective));
      Integer w = owned.get(objective.name());
      if (w == null) {
        o.putNull("pagerWorker");
      } else {
        o.put("pagerWorker", w);
      }
      if (status == null) {
        continue;
      }
      ObjectiveStatus s = status.objective(objective.name());
      o.put("good", s.periodCounts().good());
      o.put("total", s.periodCounts().total());
      o.set("sli", number(f, s.sli()));
      o.put("budgetRemaining", s.budgetRemaining());
      ArrayNode burn = o.putArray("burnRates");
      s.burnRates()
          .forEach(
              (window, rate) -> {
                ObjectNode b = burn.addObject();
                b.put("windowSeconds", window.toMillis() / 1e3);
                b.set("burnRate", number(f, rate));
              });
      ArrayNode as = o.putArray("alerts");
      for (AlertStatus a : s.alerts()) {
        ObjectNode n = as.addObject();
        n.put("name", a.alert().name());
        n.put("severity", a.alert().severity().label());
        n.put("firing", a.firing());
        n.set("longBurnRate", number(f, a.longBurnRate()));
        n.set("shortBurnRate", number(f, a.shortBurnRate()));
        Long at = firing.get(key(objective.name(), a.alert().name()));
        if (at == null) {
          n.putNull("sinceSeconds");
        } else {
          n.put("sinceSeconds", at / 1e9);
        }
      }
    }
    ArrayNode events = root.putArray("events");
    synchronized (this) {
      recentEvents.forEach(events::add);
    }
    return root;
  }

  private static String describe(Objective o) {
    String target = trim(o.target() * 100) + " %";
    return o.threshold()
        .map(t -> target + " of requests at most " + Format.millis(t.toNanos() / 1e6))
        .orElse(target + " of requests not failed");
  }

  /** A duration for people: {@code 30 d}, {@code 1 h}, {@code 5 min}, {@code 3.6 s}. */
  static String label(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000 == 0) {
      return ms / 86_400_000 + " d";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + " h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + " min";
    }
    return seconds(d);
  }

  private static String seconds(Duration d) {
    return trim(d.toMillis() / 1e3) + " s";
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, "%.3f", v);
    return s.replaceAll("\\.?0+$", "");
  }

  private static JsonNode number(JsonNodeFactory f, double v) {
    return Double.isNaN(v) ? f.nullNode() : f.numberNode(v);
  }
}
