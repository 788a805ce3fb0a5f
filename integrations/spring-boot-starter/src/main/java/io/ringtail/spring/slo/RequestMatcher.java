package io.ringtail.spring.slo;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.ringtail.internal.Checks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.util.AntPathMatcher;

/**
 * Which observations a service level counts: its path patterns matched against the observation's
 * {@code uri} key value (the route's URI template, {@code /orders/{id}}, as Spring MVC and WebFlux
 * give it), its methods against the {@code method} key value, and further key values by equality.
 * Empty patterns or methods match every one.
 *
 * <p>Patterns are Spring's Ant-style ({@code /orders/**}, {@code /orders/*}, {@code /orders/{id}});
 * a template is matched once and the answer remembered (at most {@value #MAX_REMEMBERED} templates;
 * more are matched on every call), so a request costs a map lookup. Thread-safe.
 */
final class RequestMatcher {
  static final int MAX_REMEMBERED = 1_024;
  static final String URI = "uri";
  static final String METHOD = "method";

  private static final AntPathMatcher PATHS = new AntPathMatcher();

  private final String[] patterns;
  private final String[] methods;
  private final String[] names;
  private final String[] values;
  private final Map<String, Boolean> remembered = new ConcurrentHashMap<>();

  private RequestMatcher(String[] patterns, String[] methods, String[] names, String[] values) {
    this.patterns = patterns;
    this.methods = methods;
    this.names = names;
    this.values = values;
  }

  /**
   * The matcher of {@code paths}, {@code methods} and {@code keyValues}, as declared under {@code
   * at} ({@code ringtail.slo.checkout}).
   */
  static RequestMatcher of(
      String at, List<String> paths, List<String> methods, Map<String, String> keyValues) {
    List<String> p = new ArrayList<>();
    for (String path : paths == null ? List.<String>of() : paths) {
      if (path == null || !path.trim().startsWith("/")) {
        throw Checks.invalid(at + ".paths", "path patterns starting with /", path);
      }
      p.add(path.trim());
    }
    List<String> m = new ArrayList<>();
    for (String method : methods == null ? List.<String>of() : methods) {
      if (method == null || !method.trim().matches("[A-Za-z]+")) {
        throw Checks.invalid(at + ".methods", "HTTP methods (GET, POST)", method);
      }
      m.add(method.trim().toUpperCase(Locale.ROOT).intern());
    }
    List<String> n = new ArrayList<>();
    List<String> v = new ArrayList<>();
    (keyValues == null ? Map.<String, String>of() : keyValues)
        .forEach(
            (name, value) -> {
              if (value == null) {
                throw Checks.invalid(at + ".key-values." + name, "a value", null);
              }
              n.add(name);
              v.add(value);
            });
    return new RequestMatcher(
        p.toArray(String[]::new),
        m.toArray(String[]::new),
        n.toArray(String[]::new),
        v.toArray(String[]::new));
  }

  /** Whether the observation of {@code context} is counted. Never throws on a context's values. */
  boolean matches(Observation.Context context) {
    if (methods.length > 0 && !anyOf(methods, valueOf(context, METHOD))) {
      return false;
    }
    for (int i = 0; i < names.length; i++) {
      if (!values[i].equals(valueOf(context, names[i]))) {
        return false;
      }
    }
    return patterns.length == 0 || matchesPath(valueOf(context, URI));
  }

  /**
   * Whether a key's values are counted ({@code method}, {@code uri} and the further key values, as
   * {@link #matches(Observation.Context)} reads them from a context).
   */
  boolean matches(Map<String, String> keyValues) {
    if (methods.length > 0 && !anyOf(methods, keyValues.get(METHOD))) {
      return false;
    }
    for (int i = 0; i < names.length; i++) {
      if (!values[i].equals(keyValues.get(names[i]))) {
        return false;
      }
    }
    return patterns.length == 0 || matchesPath(keyValues.get(URI));
  }

  /** Whether this selects on a key value among {@code names}. */
  boolean selectsOn(Set<String> names) {
    if (names.contains(URI) && patterns.length > 0
        || names.contains(METHOD) && methods.length > 0) {
      return true;
    }
    for (String n : this.names) {
      if (names.contains(n)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a URI template matches one of the patterns. */
  boolean matchesPath(String template) {
    if (template == null) {
      return false;
    }
    Boolean known = remembered.get(template);
    if (known != null) {
      return known;
    }
    boolean match = false;
    for (String pattern : patterns) {
      match |= pattern.equals(template) || PATHS.match(pattern, template);
    }
    if (remembered.size() < MAX_REMEMBERED) {
      remembered.put(template, match);
    }
    return match;
  }

  private static boolean anyOf(String[] candidates, String value) {
    if (value == null) {
      return false;
    }
    for (String c : candidates) {
      if (c.equals(value)) {
        return true;
      }
    }
    return false;
  }

  /** The value of a low-cardinality key value, or null: a map lookup, no copy. */
  static String valueOf(Observation.Context context, String name) {
    KeyValue kv = context.getLowCardinalityKeyValue(name);
    return kv == null ? null : kv.getValue();
  }

  /** What it matches, for the endpoint. */
  Map<String, Object> describe() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("paths", List.of(patterns));
    out.put("methods", List.of(methods));
    Map<String, String> kv = new LinkedHashMap<>();
    for (int i = 0; i < names.length; i++) {
      kv.put(names[i], values[i]);
    }
    out.put("keyValues", kv);
    return out;
  }
}
