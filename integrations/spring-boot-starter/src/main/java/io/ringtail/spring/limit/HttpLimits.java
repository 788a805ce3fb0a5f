package io.ringtail.spring.limit;

import io.ringtail.decision.CountsDecisions;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The engine behind the {@code ringtail.limits} filters of Spring MVC and WebFlux: which limits a
 * request falls under, its key and amount, the decisions, and what the client is answered. Built
 * once from the properties, which it checks, naming the property at fault. Thread-safe.
 *
 * <p>A request's limits are decided in their configured order; the first that denies ends it (the
 * later ones count nothing). Every answer to a limited request carries {@code RateLimit-Policy} and
 * {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers), with {@code t} once nothing remains; a
 * denial is a 429 with {@code Retry-After}; a decision that could not be made at all (Redis down
 * under the {@code throw} outage policy) a 503 with {@code Retry-After}, its member {@code r=0} and
 * {@code t} the same seconds, counted per limit ({@link #unavailable()}).
 *
 * <p>The limits of handler methods annotated {@link RingtailLimit} come after the configured ones:
 * they are built once, by {@link #complete()}, when the handler mappings exist.
 */
final class HttpLimits {
  private static final System.Logger LOG = System.getLogger(HttpLimits.class.getName());

  /** The key of requests that have none (no such header, no principal). */
  static final String NO_KEY = "-";

  private final LimitDecisions decisions;
  private final boolean remote;
  private final long unavailableRetryAfterSeconds;
  private final AtomicBoolean failing = new AtomicBoolean();
  private volatile State state;

  HttpLimits(Map<String, RingtailLimitProperties.Limit> byName, LimitDecisions decisions) {
    this(byName, decisions, null);
  }

  /** The configured limits {@code byName}, then those {@code annotated} supplies, once. */
  HttpLimits(
      Map<String, RingtailLimitProperties.Limit> byName,
      LimitDecisions decisions,
      Supplier<List<Definition>> annotated) {
    Objects.requireNonNull(byName, "limits");
    this.decisions = decisions;
    List<HttpLimit> built = new ArrayList<>();
    byName.forEach(
        (name, limit) ->
            built.add(new HttpLimit(name, limit, decisions, propertiesOf(name), null)));
    this.state = new State(built, annotated);
    this.remote = decisions.remote();
    this.unavailableRetryAfterSeconds = seconds(decisions.unavailableRetryAfter());
  }

  /**
   * Builds the annotated limits, once: called when every singleton exists (the handler mappings
   * among them), and by any use before. A bad annotation throws, naming the method and attribute.
   */
  void complete() {
    current();
  }

  /** The state with the annotated limits built (building them on the first call). */
  private State current() {
    State s = state;
    if (s.pending == null) {
      return s;
    }
    synchronized (this) {
      s = state;
      if (s.pending != null) {
        List<HttpLimit> all = new ArrayList<>(s.limits);
        for (Definition d : s.pending.get()) {
          all.add(new HttpLimit(d.name(), d.settings(), decisions, d.at(), d.routes()));
        }
        s = new State(all, null);
        state = s;
      }
      return s;
    }
  }

  private List<HttpLimit> limits() {
    return current().limits;
  }

  /** The names of the limits built so far (without building the annotated ones). */
  List<String> names() {
    return state.limits.stream().map(l -> l.name).toList();
  }

  @Override
  public String toString() {
    return names().toString();
  }

  /**
   * The limits, whether one reads the principal, and the supplier of the annotated limits while
   * they are not built (null once they are).
   */
  private record State(
      List<HttpLimit> limits, boolean needsPrincipal, Supplier<List<Definition>> pending) {
    State(List<HttpLimit> limits, Supplier<List<Definition>> pending) {
      this(List.copyOf(limits), limits.stream().anyMatch(l -> l.needsPrincipal), pending);
    }
  }

  /**
   * A limit of its own naming and routes: {@code at} names an attribute ("" the whole, "name" the
   * name) in a message; {@code settings} are read as a configured limit's properties are, except
   * {@code path} and {@code methods}, which {@code routes} replace.
   */
  record Definition(
      String name,
      RingtailLimitProperties.Limit settings,
      UnaryOperator<String> at,
      List<Route> routes) {}

  /**
   * A path pattern and the methods it is limited for (every method if empty), unless one of the
   * {@code shadows} (another handler's more specific mapping) matches the request too.
   */
  record Route(PathPattern pattern, Set<String> methods, List<Route> shadows) {
    boolean allows(String method) {
      return methods.isEmpty() || methods.contains(method);
    }

    boolean matches(String method, PathContainer path) {
      if (!allows(method) || !pattern.matches(path)) {
        return false;
      }
      for (Route s : shadows) {
        if (s.allows(method) && s.pattern.matches(path)) {
          return false;
        }
      }
      return true;
    }
  }

  /** A limit's properties by attribute name: {@code maximumKeys} is {@code ...maximum-keys}. */
  private static UnaryOperator<String> propertiesOf(String name) {
    String at = "ringtail.limits." + name;
    return a ->
        a.isEmpty() || a.equals("name")
            ? at
            : at + "." + a.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
  }

  /** Whether a decision may wait on I/O. */
  boolean remote() {
    return remote;
  }

  /** Whether some limit's key reads the principal (a WebFlux filter resolves it first then). */
  boolean needsPrincipal() {
    return current().needsPrincipal;
  }

  /** The decisions by limit name, for meters. */
  Map<String, CountsDecisions> decisions() {
    Map<String, CountsDecisions> byName = new LinkedHashMap<>();
    limits().forEach(l -> byName.put(l.name, (CountsDecisions) l.decision));
    return Collections.unmodifiableMap(byName);
  }

  /** The requests answered 503 (the decision could not be made) by limit name, for meters. */
  Map<String, LongAdder> unavailable() {
    Map<String, LongAdder> byName = new LinkedHashMap<>();
    limits().forEach(l -> byName.put(l.name, l.unavailable));
    return Collections.unmodifiableMap(byName);
  }

  /** Whether any limit applies to a request for {@code path} with {@code method}: cheap, no key. */
  boolean applies(String method, PathContainer path) {
    for (HttpLimit l : limits()) {
      if (l.matches(method, path)) {
        return true;
      }
    }
    return false;
  }

  /** Decides {@code request} under every limit it falls under; null if none does. */
  Answer decide(LimitedRequest request, PathContainer path) {
    List<String> policies = null;
    List<String> states = null;
    for (HttpLimit l : limits()) {
      if (!l.matches(request.getMethod(), path)) {
        continue;
      }
      if (policies == null) {
        policies = new ArrayList<>(2);
        states = new ArrayList<>(2);
      }
      policies.add(l.policy);
      Answer denied;
      try {
        denied = l.decide(request, states);
        if (failing.get()) {
          failing.set(false);
          LOG.log(Level.INFO, l.source + ": decisions are made again");
        }
      } catch (HttpLimit.BadAmount e) {
        return new Answer(400, policies, states, -1, e.getMessage());
      } catch (RuntimeException e) {
        l.unavailable.increment();
        // nothing can be admitted before the retry: the member says so, as Retry-After does
        states.add(l.quoted + ";r=0;t=" + unavailableRetryAfterSeconds);
        if (failing.compareAndSet(false, true)) {
          LOG.log(
              Level.WARNING,
              l.source + ": the decision could not be made; answering 503 until one can be",
              e);
        }
        return new Answer(
            503,
            policies,
            states,
            unavailableRetryAfterSeconds,
            "limit \""
                + l.name
                + "\" cannot be decided now; retry in "
                + unavailableRetryAfterSeconds
                + " s\n");
      }
      if (denied != null) {
        return new Answer(429, policies, states, denied.retryAfter(), denied.body());
      }
    }
    return policies == null ? null : new Answer(0, policies, states, -1, null);
  }

  /** Whole seconds, rounded up: a client that waits this long is past the duration. */
  static long seconds(Duration d) {
    long nanos = d.toNanos();
    return nanos / 1_000_000_000L + (nanos % 1_000_000_000L == 0 ? 0 : 1);
  }

  /**
   * What a limited request is answered: status 0 to let it through, else the status to answer with;
   * the header fields' values, and {@code Retry-After} (seconds) when not negative.
   */
  record Answer(
      int status, List<String> policies, List<String> states, long retryAfter, String body) {

    /** The {@code RateLimit-Policy} field value: one list member per limit applied. */
    String policyField() {
      return String.join(", ", policies);
    }

    /** The {@code RateLimit} field value: one list member per limit decided. */
    String stateField() {
      return String.join(", ", states);
    }
  }
}
