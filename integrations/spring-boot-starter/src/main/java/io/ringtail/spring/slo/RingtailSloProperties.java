package io.ringtail.spring.slo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringtail.slo.<name>.*} settings: service levels declared by configuration, each
 * recording the requests it selects from an observation ({@code http.server.requests} unless set)
 * against its objectives ({@link ServiceLevels}). Mutable (Spring binds them); read once when the
 * context starts. Not thread-safe.
 */
@ConfigurationProperties("ringtail")
public class RingtailSloProperties {
  /** The service levels by name ({@code ringtail.slo.checkout.*}). */
  private Map<String, ServiceLevel> slo = new LinkedHashMap<>();

  public Map<String, ServiceLevel> getSlo() {
    return slo;
  }

  public void setSlo(Map<String, ServiceLevel> slo) {
    this.slo = slo;
  }

  /** One service level: which requests, its objectives, period and alerts. */
  public static class ServiceLevel {
    /** The observation whose requests are counted. */
    private String observation = "http.server.requests";

    /**
     * Path patterns ({@code /orders/**}, {@code /orders/{id}}) matched against the request's URI
     * template (the observation's {@code uri} key value); every path when empty.
     */
    private List<String> paths = new ArrayList<>();

    /** HTTP methods counted ({@code GET}, {@code POST}); every method when empty. */
    private List<String> methods = new ArrayList<>();

    /** Further low-cardinality key values an observation must have to be counted. */
    private Map<String, String> keyValues = new LinkedHashMap<>();

    /**
     * Statuses that count as failed for availability objectives: classes ({@code 5xx}, {@code 4xx})
     * or codes ({@code 429}).
     */
    private List<String> failures = new ArrayList<>(List.of("5xx"));

    /** The objectives by name: latency when a threshold is set, availability otherwise. */
    private Map<String, Objective> objectives = new LinkedHashMap<>();

    /** The rolling compliance period over which the budget is counted. */
    private Duration period = Duration.ofDays(30);

    /** The burn-rate alerts; the SRE workbook's (page-1h, page-6h, ticket-3d) when empty. */
    private List<Alert> alerts = new ArrayList<>();

    /** How often the alerts are evaluated (fire and resolve events). */
    private Duration evaluationInterval = Duration.ofSeconds(30);

    /** With a Redis backend: whether the service level is fleet-wide. */
    private boolean fleet = true;

    /** Fleet-wide: how often this instance sends its counts to Redis. */
    private Duration publishInterval = Duration.ofSeconds(1);

    public String getObservation() {
      return observation;
    }

    public void setObservation(String observation) {
      this.observation = observation;
    }

    public List<String> getPaths() {
      return paths;
    }

    public void setPaths(List<String> paths) {
      this.paths = paths;
    }

    public List<String> getMethods() {
      return methods;
    }

    public void setMethods(List<String> methods) {
      this.methods = methods;
    }

    public Map<String, String> getKeyValues() {
      return keyValues;
    }

    public void setKeyValues(Map<String, String> keyValues) {
      this.keyValues = keyValues;
    }

    public List<String> getFailures() {
      return failures;
    }

    public void setFailures(List<String> failures) {
      this.failures = failures;
    }

    public Map<String, Objective> getObjectives() {
      return objectives;
    }

    public void setObjectives(Map<String, Objective> objectives) {
      this.objectives = objectives;
    }

    public Duration getPeriod() {
      return period;
    }

    public void setPeriod(Duration period) {
      this.period = period;
    }

    public List<Alert> getAlerts() {
      return alerts;
    }

    public void setAlerts(List<Alert> alerts) {
      this.alerts = alerts;
    }

    public Duration getEvaluationInterval() {
      return evaluationInterval;
    }

    public void setEvaluationInterval(Duration evaluationInterval) {
      this.evaluationInterval = evaluationInterval;
    }

    public boolean isFleet() {
      return fleet;
    }

    public void setFleet(boolean fleet) {
      this.fleet = fleet;
    }

    public Duration getPublishInterval() {
      return publishInterval;
    }

    public void setPublishInterval(Duration publishInterval) {
      this.publishInterval = publishInterval;
    }
  }

  /** One objective. */
  public static class Objective {
    /** Latency objectives: the most a good request takes ({@code 300ms}). */
    private Duration threshold;

    /** The fraction of requests that must be good, strictly between 0 and 1 ({@code 0.99}). */
    private Double target;

    public Duration getThreshold() {
      return threshold;
    }

    public void setThreshold(Duration threshold) {
      this.threshold = threshold;
    }

    public Double getTarget() {
      return target;
    }

    public void setTarget(Double target) {
      this.target = target;
    }
  }

  /** One burn-rate alert. */
  public static class Alert {
    /** Who it is for: page or ticket. */
    private String severity = "page";

    /** The burn rate both windows must be above ({@code 14.4}). */
    private Double factor;

    /** The long window ({@code 1h}). */
    private Duration longWindow;

    /** The short window ({@code 5m}), shorter than the long one. */
    private Duration shortWindow;

    public String getSeverity() {
      return severity;
    }

    public void setSeverity(String severity) {
      this.severity = severity;
    }

    public Double getFactor() {
      return factor;
    }

    public void setFactor(Double factor) {
      this.factor = factor;
    }

    public Duration getLongWindow() {
      return longWindow;
    }

    public void setLongWindow(Duration longWindow) {
      this.longWindow = longWindow;
    }

    public Duration getShortWindow() {
      return shortWindow;
    }

    public void setShortWindow(Duration shortWindow) {
      this.shortWindow = shortWindow;
    }
  }
}
