package io.ringtail.spring.anomaly;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringtail.anomaly.*} settings: anomaly alerts on every endpoint of the observation
 * windows ({@link EndpointAnomalies}). Mutable (Spring binds them); read once when the context
 * starts. Not thread-safe.
 */
@ConfigurationProperties("ringtail.anomaly")
public class RingtailAnomalyProperties {
  /** Whether every endpoint of the observation windows gets anomaly detectors. */
  private boolean enabled = false;

  /** What is watched per endpoint: p95 (latency), error-ratio (5xx share), rate (requests/s). */
  private List<EndpointAnomalies.Measure> measures =
      new ArrayList<>(
          List.of(EndpointAnomalies.Measure.P95, EndpointAnomalies.Measure.ERROR_RATIO));

  /** How often each endpoint's measures are scored: the detectors count evaluations, not time. */
  private Duration interval = Duration.ofMinutes(1);

  /** The score, 0 to 1, at or above which an endpoint's measure fires; 0.5 is the tuned alarm. */
  private double level = 0.5;

  /** Evaluations each detector learns before it scores (150 is two and a half hours at 1 m). */
  private int warmUp = 150;

  /** Key values that name an endpoint; its other key values (status, outcome) are pooled. */
  private List<String> endpointTags = new ArrayList<>(List.of("method", "uri"));

  /** Most endpoints watched per observation; later ones are left unwatched (logged once). */
  private int maximumEndpoints = 100;

  /** Requests an endpoint's window needs for its P95 and error ratio to be scored. */
  private long minimumSamples = 5;

  /**
   * With fleet-wide windows (a Redis backend): how long one regression of one endpoint's measure
   * pages only once across the fleet, however many instances see it fire.
   */
  private Duration fleetDedupe = Duration.ofMinutes(30);

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public List<EndpointAnomalies.Measure> getMeasures() {
    return measures;
  }

  public void setMeasures(List<EndpointAnomalies.Measure> measures) {
    this.measures = measures;
  }

  public Duration getInterval() {
    return interval;
  }

  public void setInterval(Duration interval) {
    this.interval = interval;
  }

  public double getLevel() {
    return level;
  }

  public void setLevel(double level) {
    this.level = level;
  }

  public int getWarmUp() {
    return warmUp;
  }

  public void setWarmUp(int warmUp) {
    this.warmUp = warmUp;
  }

  public List<String> getEndpointTags() {
    return endpointTags;
  }

  public void setEndpointTags(List<String> endpointTags) {
    this.endpointTags = endpointTags;
  }

  public int getMaximumEndpoints() {
    return maximumEndpoints;
  }

  public void setMaximumEndpoints(int maximumEndpoints) {
    this.maximumEndpoints = maximumEndpoints;
  }

  public long getMinimumSamples() {
    return minimumSamples;
  }

  public void setMinimumSamples(long minimumSamples) {
    this.minimumSamples = minimumSamples;
  }

  public Duration getFleetDedupe() {
    return fleetDedupe;
  }

  public void setFleetDedupe(Duration fleetDedupe) {
    this.fleetDedupe = fleetDedupe;
  }
}
