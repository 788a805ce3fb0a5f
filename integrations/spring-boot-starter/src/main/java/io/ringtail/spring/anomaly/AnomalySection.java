package io.ringtail.spring.anomaly;

import io.ringtail.spring.RingtailEndpointSection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The anomaly alerts' section of the {@code ringtail} Actuator endpoint ({@code anomalies}): each
 * watched endpoint's measures, baseline, score, and whether it fires.
 */
final class AnomalySection implements RingtailEndpointSection {
  private final EndpointAnomalies anomalies;

  AnomalySection(EndpointAnomalies anomalies) {
    this.anomalies = Objects.requireNonNull(anomalies, "anomalies");
  }

  @Override
  public String sectionName() {
    return "anomalies";
  }

  @Override
  public Object section() {
    return anomalies(anomalies);
  }

  /** Each watched endpoint's measures: value, baseline, score, and whether it fires. */
  private static List<Map<String, Object>> anomalies(EndpointAnomalies anomalies) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (EndpointAnomalies.State s : anomalies.states()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("window", s.observation());
      e.put("endpoint", s.endpoint());
      e.put("measure", s.measure().label());
      e.put("value", finite(s.value()));
      e.put("unit", unitOf(s.measure())); // of the value and the baseline
      e.put("baseline", finite(s.baseline()));
      e.put("score", finite(s.score()));
      e.put("firing", s.firing());
      e.put("paged", s.paged());
      e.put("evaluations", s.evaluations());
      e.put("evaluatedHere", s.here());
      out.add(e);
    }
    return out;
  }

  /** A measure's unit: nanoseconds (p95, as recorded), a fraction, or per second. */
  private static String unitOf(EndpointAnomalies.Measure m) {
    return switch (m) {
      case P95 -> "ns";
      case ERROR_RATIO -> "ratio";
      case RATE -> "1/s";
    };
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
