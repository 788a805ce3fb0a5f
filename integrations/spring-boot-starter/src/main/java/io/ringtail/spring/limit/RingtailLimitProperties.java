package io.ringtail.spring.limit;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringtail.limits.<name>.*} settings: HTTP limits by configuration, each applied by the
 * starter's filter to the requests it matches (see {@code docs/limits.md}). Mutable (Spring binds
 * them); read once when the context starts. Not thread-safe.
 */
@ConfigurationProperties("ringtail")
public class RingtailLimitProperties {
  /**
   * HTTP limits by name; the name shows in the RateLimit header fields and in the decision meters.
   */
  private Map<String, Limit> limits = new LinkedHashMap<>();

  public Map<String, Limit> getLimits() {
    return limits;
  }

  public void setLimits(Map<String, Limit> limits) {
    this.limits = limits;
  }

  /** What a limit decides. */
  public enum Kind {
    /** Exact: at most {@code limit} requests per key in any rolling window. */
    SLIDING_LOG,
    /** At most {@code limit} per key in any window, in 17 counters per key whatever the limit. */
    BUCKETED,
    /** At most {@code limit} of the requests' amounts (the {@code amount} source) per window. */
    SUM_CAP
  }

  /** One limit: which requests, counted under which key, how many per window. */
  public static class Limit {
    /**
     * Path patterns (Spring's PathPattern syntax, like /api/**) of the requests limited: one, or a
     * list. The patterns of {@code paths} are added to them.
     */
    private List<String> path = new ArrayList<>();

    /** More path patterns, the same as {@code path} (either or both may be set). */
    private List<String> paths = new ArrayList<>();

    /** HTTP methods limited (GET, POST...); every method unless set. */
    private Set<String> methods = new LinkedHashSet<>();

    /**
     * What requests are counted under: ip (the client address, as the server sees it), header:NAME
     * (a header's value, an API key), principal (the authenticated user's name) or expression:SPEL
     * (a SpEL expression on the request: header('X-Tenant'), path, method, remoteAddress,
     * principal, attribute('name')). Requests without one share a key.
     */
    private String key = "ip";

    /** How the limit decides: sliding-log (exact), bucketed, or sum-cap. */
    private Kind kind = Kind.SLIDING_LOG;

    /** Requests per window per key; for a sum cap, the most the amounts may total. */
    private BigDecimal limit;

    /** The rolling window the limit applies to. */
    private Duration window = Duration.ofMinutes(1);

    /**
     * Where a sum cap reads each request's amount: header:NAME or attribute:NAME (a request
     * attribute an earlier filter sets). Sum caps only.
     */
    private String amount;

    /** Digits after the point a sum cap's amounts may have. Sum caps only. */
    private int scale = 2;

    /** Most keys held in-process at a time (the least used are forgotten). In-process only. */
    private long maximumKeys = 1_000_000;

    public List<String> getPath() {
      return path;
    }

    public void setPath(List<String> path) {
      this.path = path;
    }

    public List<String> getPaths() {
      return paths;
    }

    public void setPaths(List<String> paths) {
      this.paths = paths;
    }

    public Set<String> getMethods() {
      return methods;
    }

    public void setMethods(Set<String> methods) {
      this.methods = methods;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public Kind getKind() {
      return kind;
    }

    public void setKind(Kind kind) {
      this.kind = kind;
    }

    public BigDecimal getLimit() {
      return limit;
    }

    public void setLimit(BigDecimal limit) {
      this.limit = limit;
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public String getAmount() {
      return amount;
    }

    public void setAmount(String amount) {
      this.amount = amount;
    }

    public int getScale() {
      return scale;
    }

    public void setScale(int scale) {
      this.scale = scale;
    }

    public long getMaximumKeys() {
      return maximumKeys;
    }

    public void setMaximumKeys(long maximumKeys) {
      this.maximumKeys = maximumKeys;
    }
  }
}
