package io.ringtail.spring.limit;

import io.ringtail.decision.CountsDecisions;
import java.lang.System.Logger.Level;
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
 * request falls under, their decisions in order, and what the client is answered ({@link
 * LimitAnswer}). Built once from the properties ({@link LimitSettings}), which it checks, naming
 * the property at fault. Thread-safe.
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
    byName.forEach((name, limit) -> built.add(build(name, limit, propertiesOf(name), null)));
    this.state = new State(built, annotated);
    this.remote = decisions.remote();
    this.unavailableRetryAfterSeconds = RateLimitFields.seconds(decisions.unavailableRetryAfter());
  }

  private HttpLimit build(
      String name,
      RingtailLimitProperties.Limit settings,
      UnaryOperator<String> at,
      List<Route> routes) {
    return HttpLimit.of(
        LimitSettings.of(name, settings, decisions.timeSource(), at, routes), decisions);
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
          all.add(build(d.name(), d.settings(), d.at(), d.routes()));
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
    return state.limits.stream().map(HttpLimit::name).toList();
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
      this(
          List.copyOf(limits), limits.stream().anyMatch(l -> l.settings.needsPrincipal()), pending);
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
    limits().forEach(l -> byName.put(l.name(), l.counts()));
    return Collections.unmodifiableMap(byName);
  }

  /** The requests answered 503 (the decision could not be made) by limit name, for meters. */
  Map<String, LongAdder> unavailable() {
    Map<String, LongAdder> byName = new LinkedHashMap<>();
    limits().forEach(l -> byName.put(l.name(), l.unavailable));
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

  /**
   * Decides {@code request} under every limit it falls under, in order, until one refuses it: the
   * answer of the last limit decided, with every decided limit's header field members; null if no
   * limit names the request.
   */
  LimitAnswer decide(LimitedRequest request, PathContainer path) {
    LimitAnswer answer = null;
    for (HttpLimit l : limits()) {
      if (!l.matches(request.getMethod(), path)) {
        continue;
      }
      RateLimitFields before = answer == null ? RateLimitFields.NONE : answer.fields();
      try {
        answer = l.decide(request, before);
      } catch (RuntimeException e) {
        return unavailable(l, before, e);
      }
      if (failing.get()
          && !(answer instanceof LimitAnswer.BadAmount)) { // a bad amount: no decision
        failing.set(false);
        LOG.log(Level.INFO, l.settings.source() + ": decisions are made again");
      }
      if (answer instanceof LimitAnswer.Refusal) {
        return answer;
      }
    }
    return answer;
  }

  /** {@code l} could not decide: counted, logged when decisions start failing, answered 503. */
  private LimitAnswer unavailable(HttpLimit l, RateLimitFields before, RuntimeException e) {
    l.unavailable.increment();
    if (failing.compareAndSet(false, true)) {
      LOG.log(
          Level.WARNING,
          l.settings.source() + ": the decision could not be made; answering 503 until one can be",
          e);
    }
    return LimitAnswer.unavailable(l.policy, unavailableRetryAfterSeconds, before);
  }
}
