package io.ringtail.spring;

import io.ringtail.WindowConventions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringtail.*} settings of the Spring Boot starter. Mutable (Spring binds them); read
 * once when the context starts. Not thread-safe.
 */
@ConfigurationProperties("ringtail")
public class RingtailProperties {
  private final Metrics metrics = new Metrics();
  private final Redis redis = new Redis();
  private final Alerts alerts = new Alerts();
  private final Observations observations = new Observations();

  public Metrics getMetrics() {
    return metrics;
  }

  public Redis getRedis() {
    return redis;
  }

  public Alerts getAlerts() {
    return alerts;
  }

  public Observations getObservations() {
    return observations;
  }

  /** Binding of window beans to the application's MeterRegistry. */
  public static class Metrics {
    /** Whether every RollingWindow and KeyedWindows bean is bound to the MeterRegistry. */
    private boolean enabled = true;

    /**
     * Percentiles published per window, as fractions from 0 to 1 (0.95 for P95), the rule of every
     * binding. Ignored when the application defines a WindowConventions bean.
     */
    private List<Double> percentiles = new ArrayList<>(List.of(0.5, 0.95, 0.99));

    /**
     * Most keys of one KeyedWindows bean that have meters (and Prometheus histograms) at a time, 1
     * to 100000. Ignored when the application defines a WindowConventions bean.
     */
    private int maximumKeys = 100;

    /** Bean names of windows not to bind (the application binds them itself, or not at all). */
    private Set<String> excluded = new LinkedHashSet<>();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<Double> getPercentiles() {
      return percentiles;
    }

    public void setPercentiles(List<Double> percentiles) {
      this.percentiles = percentiles;
    }

    public int getMaximumKeys() {
      return maximumKeys;
    }

    public void setMaximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
    }

    public Set<String> getExcluded() {
      return excluded;
    }

    public void setExcluded(Set<String> excluded) {
      this.excluded = excluded;
    }
  }

  /** The Redis backend built on the application's Lettuce client. */
  public static class Redis {
    /** Whether to build a RedisBackend on the application's Lettuce connection factory. */
    private boolean enabled = false;

    /** Prefix of every key Ringtail writes to Redis. */
    private String keyPrefix = "ringtail";

    /** Bound on every Redis call Ringtail makes. */
    private Duration commandTimeout = Duration.ofMillis(500);

    /**
     * What a Redis decision (a ringtail.limits entry, a RateLimiter or SumCap bean of the backend)
     * answers while Redis cannot: fail-closed (deny, with the outage retry-after), fail-open
     * (admit) or throw (a limit answers 503).
     */
    private String outagePolicy = "fail-closed";

    /** The Retry-After of a request denied, or answered 503, because Redis could not decide. */
    private Duration outageRetryAfter = Duration.ofSeconds(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    public String getOutagePolicy() {
      return outagePolicy;
    }

    public void setOutagePolicy(String outagePolicy) {
      this.outagePolicy = outagePolicy;
    }

    public Duration getOutageRetryAfter() {
      return outageRetryAfter;
    }

    public void setOutageRetryAfter(Duration outageRetryAfter) {
      this.outageRetryAfter = outageRetryAfter;
    }
  }

  /** Evaluation of AlertRule beans. */
  public static class Alerts {
    /** Whether AlertRule beans are evaluated on the starter's scheduler. */
    private boolean enabled = true;

    /** How often every rule is evaluated. */
    private Duration interval = Duration.ofSeconds(10);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }

  /** Rolling windows of the application's Micrometer observations (HTTP requests and others). */
  public static class Observations {
    /** Whether the observations named below are timed into rolling windows. */
    private boolean enabled = true;

    /** Names of the observations to window; every HTTP server request unless set. */
    private List<String> names = new ArrayList<>(List.of("http.server.requests"));

    /** Low-cardinality key values left out of the key. */
    private Set<String> ignoredTags = new LinkedHashSet<>(List.of("exception", "error"));

    /** Length of each key's rolling window. */
    private Duration window = Duration.ofMinutes(1);

    /** Buckets of each key's window (it rotates every window / buckets). */
    private int buckets = 12;

    /** Most keys (tag combinations) held, and published, per observation. */
    private int maximumKeys = 500;

    /**
     * Whether each in-process key's window also keeps its distribution since creation, exported as
     * the ringtail_keyed_seconds Prometheus histogram (one series per key's tags) when
     * ringtail-prometheus and Boot's PrometheusRegistry are present: Prometheus then adds the pods'
     * histograms for the fleet's percentiles. Costs a second histogram record per request. Fleet
     * windows combine in Redis instead and keep none.
     */
    private boolean cumulativeHistogram = false;

    /**
     * Whether the windows are fleet-wide when the application has a Ringtail Redis backend: every
     * instance records into, and publishes the gauges of, one window per observation in Redis.
     * False keeps each instance's windows in-process.
     */
    private boolean fleet = true;

    /**
     * Longest a fleet window's sample waits in the instance before it is sent to Redis, 1 ms to 1
     * minute (closing the context publishes what is left).
     */
    private Duration publishInterval = Duration.ofSeconds(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<String> getNames() {
      return names;
    }

    public void setNames(List<String> names) {
      this.names = names;
    }

    public Set<String> getIgnoredTags() {
      return ignoredTags;
    }

    public void setIgnoredTags(Set<String> ignoredTags) {
      this.ignoredTags = ignoredTags;
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public int getBuckets() {
      return buckets;
    }

    public void setBuckets(int buckets) {
      this.buckets = buckets;
    }

    public int getMaximumKeys() {
      return maximumKeys;
    }

    public void setMaximumKeys(int maximumKeys) {
      this.maximumKeys = maximumKeys;
    }

    public boolean isCumulativeHistogram() {
      return cumulativeHistogram;
    }

    public void setCumulativeHistogram(boolean cumulativeHistogram) {
      this.cumulativeHistogram = cumulativeHistogram;
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

  /**
   * The {@link WindowConventions} of these percentiles and maximum keys.
   *
   * @throws IllegalArgumentException if one breaks the conventions' rules
   */
  public static WindowConventions conventionsOf(List<Double> percentiles, int maximumKeys) {
    double[] ps =
        Objects.requireNonNull(percentiles, "percentiles").stream()
            .mapToDouble(Double::doubleValue)
            .toArray();
    return WindowConventions.builder().percentiles(ps).maximumKeys(maximumKeys).build();
  }
}
