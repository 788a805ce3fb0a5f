package io.ringtail.spring;

import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.math.BigDecimal;
import java.math.RoundingMode;
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
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The engine behind the {@code ringtail.limits} filters of Spring MVC and WebFlux: which limits a
 * request falls under, its key and amount, the decisions, and what the client is answered. Built
 * once from the properties, which it checks, naming the property at fault. Thread-safe.
 *
 * <p>A request's limits are decided in their configured order; the first that denies ends it (the
 * later ones count nothing). Every answer to a limited request carries {@code RateLimit-Policy} and
 * {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers); a denial is a 429 with {@code
 * Retry-After}; a decision that could not be made at all (Redis down under the {@code throw} outage
 * policy) a 503 with {@code Retry-After}.
 *
 * <p>The limits of handler methods annotated {@link RingtailLimit} come after the configured ones:
 * they are built once, by {@link #complete()}, when the handler mappings exist.
 */
final class HttpLimits {
  private static final System.Logger LOG = System.getLogger(HttpLimits.class.getName());
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]*");
  private static final Pattern METHOD = Pattern.compile("[A-Z]+");

  /** The key of requests that have none (no such header, no principal). */
  static final String NO_KEY = "-";

  private final LimitDecisions decisions;
  private final boolean remote;
  private final long unavailableRetryAfterSeconds;
  private final AtomicBoolean failing = new AtomicBoolean();
  private volatile State state;
  private volatile Supplier<List<Definition>> pending; // the annotated limits, until built

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
    List<Limit> built = new ArrayList<>();
    byName.forEach(
        (name, limit) -> built.add(new Limit(name, limit, decisions, propertiesOf(name), null)));
    this.state = new State(built);
    this.remote = decisions.remote();
    this.unavailableRetryAfterSeconds = seconds(decisions.unavailableRetryAfter());
    this.pending = annotated;
  }

  /**
   * Builds the annotated limits, once: called when every singleton exists (the handler mappings
   * among them), and by any use before. A bad annotation throws, naming the method and attribute.
   */
  void complete() {
    if (pending == null) {
      return;
    }
    synchronized (this) {
      Supplier<List<Definition>> annotated = pending;
      if (annotated == null) {
        return;
      }
      List<Limit> all = new ArrayList<>(state.limits);
      for (Definition d : annotated.get()) {
        all.add(new Limit(d.name(), d.settings(), decisions, d.at(), d.routes()));
      }
      state = new State(all);
      pending = null;
    }
  }

  private List<Limit> limits() {
    if (pending != null) {
      complete();
    }
    return state.limits;
  }

  /** The names of the limits built so far (without building the annotated ones). */
  List<String> names() {
    return state.limits.stream().map(l -> l.name).toList();
  }

  @Override
  public String toString() {
    return names().toString();
  }

  /** The limits, and whether one reads the principal. */
  private record State(List<Limit> limits, boolean needsPrincipal) {
    State(List<Limit> limits) {
      this(List.copyOf(limits), limits.stream().anyMatch(l -> l.needsPrincipal));
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

  private static UnaryOperator<String> propertiesOf(String name) {
    String at = "ringtail.limits." + name;
    return a -> a.isEmpty() || a.equals("name") ? at : at + "." + a;
  }

  /** Whether a decision may wait on I/O. */
  boolean remote() {
    return remote;
  }

  /** Whether some limit's key reads the principal (a WebFlux filter resolves it first then). */
  boolean needsPrincipal() {
    limits();
    return state.needsPrincipal;
  }

  /** The decisions by limit name, for meters. */
  Map<String, CountsDecisions> decisions() {
    Map<String, CountsDecisions> byName = new LinkedHashMap<>();
    limits().forEach(l -> byName.put(l.name, (CountsDecisions) l.decision));
    return Collections.unmodifiableMap(byName);
  }

  /** Whether any limit applies to a request for {@code path} with {@code method}: cheap, no key. */
  boolean applies(String method, PathContainer path) {
    for (Limit l : limits()) {
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
    for (Limit l : limits()) {
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
      } catch (BadAmount e) {
        return new Answer(400, policies, states, -1, e.getMessage());
      } catch (RuntimeException e) {
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

  /** An amount a request carries that a sum cap cannot take. */
  private static final class BadAmount extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadAmount(String message) {
      super(message, null, false, false);
    }
  }

  /** One limit, configured or annotated. */
  private static final class Limit {
    final String name;
    final String source;
    final List<Route> routes;
    final Function<LimitedRequest, String> key;
    final boolean needsPrincipal;
    final Function<LimitedRequest, Object> amount;
    final String amountSource;
    final Object decision;
    final String policy;
    final String quoted;

    /** A limit of {@code p}'s path and methods, or of {@code routes} when not null. */
    Limit(
        String name,
        RingtailLimitProperties.Limit p,
        LimitDecisions decisions,
        UnaryOperator<String> at,
        List<Route> routes) {
      if (!NAME.matcher(name).matches()) {
        throw invalid(
            at.apply("name"), "a name of lowercase letters, digits, '_', '.' and '-'", name);
      }
      this.name = name;
      this.source = at.apply("");
      this.quoted = "\"" + name + "\"";
      this.routes = routes != null ? List.copyOf(routes) : routesOf(at, p);
      String keySpec = p.getKey() == null ? "" : p.getKey().trim();
      this.needsPrincipal = keySpec.equals("principal") || keySpec.startsWith("expression:");
      this.key = keyOf(at.apply("key"), keySpec);
      BigDecimal limit = p.getLimit();
      if (limit == null || limit.signum() <= 0) {
        throw invalid(at.apply("limit"), "a positive number", limit);
      }
      if (p.getWindow() == null || p.getWindow().isNegative() || p.getWindow().isZero()) {
        throw invalid(at.apply("window"), "a positive duration", p.getWindow());
      }
      long window = seconds(p.getWindow());
      RingtailLimitProperties.Kind kind =
          p.getKind() == null ? RingtailLimitProperties.Kind.SLIDING_LOG : p.getKind();
      if (kind == RingtailLimitProperties.Kind.SUM_CAP) {
        this.amountSource = p.getAmount() == null ? "" : p.getAmount().trim();
        this.amount = amountSourceOf(at.apply("amount"), amountSource);
        SumCapConfig config;
        try {
          config =
              SumCapConfig.builder()
                  .cap(limit)
                  .scale(p.getScale())
                  .window(p.getWindow())
                  .timeSource(decisions.timeSource())
                  .build();
        } catch (IllegalArgumentException e) {
          throw Checks.atProperty(at.apply(""), e);
        }
        this.decision = built(at, () -> decisions.sumCap(name, config, p.getMaximumKeys()));
        this.policy =
            quoted + ";q=" + limit.setScale(0, RoundingMode.DOWN).toPlainString() + ";w=" + window;
      } else {
        if (p.getAmount() != null) {
          throw invalid(
              at.apply("amount"),
              "unset for kind "
                  + kind.name().toLowerCase(Locale.ROOT).replace('_', '-')
                  + " (it is for kind sum-cap)",
              p.getAmount());
        }
        this.amountSource = null;
        this.amount = null;
        int requests;
        try {
          requests = limit.intValueExact();
        } catch (ArithmeticException e) {
          throw invalid(at.apply("limit"), "a whole number of requests", limit);
        }
        RateLimitConfig config;
        try {
          config =
              RateLimitConfig.builder()
                  .limit(requests)
                  .window(p.getWindow())
                  .timeSource(decisions.timeSource())
                  .build();
        } catch (IllegalArgumentException e) {
          throw Checks.atProperty(at.apply(""), e);
        }
        boolean bucketed = kind == RingtailLimitProperties.Kind.BUCKETED;
        this.decision =
            built(at, () -> decisions.rateLimiter(name, config, bucketed, p.getMaximumKeys()));
        this.policy = quoted + ";q=" + requests + ";w=" + window;
      }
    }

    private static List<Route> routesOf(UnaryOperator<String> at, RingtailLimitProperties.Limit p) {
      if (p.getPath() == null || p.getPath().isEmpty()) {
        throw invalid(at.apply("path"), "at least one path pattern", p.getPath());
      }
      Set<String> methods =
          p.getMethods() == null
              ? Set.of()
              : p.getMethods().stream()
                  .map(m -> m.trim().toUpperCase(Locale.ROOT))
                  .collect(Collectors.toUnmodifiableSet());
      for (String m : methods) {
        if (!METHOD.matcher(m).matches()) {
          throw invalid(at.apply("methods"), "HTTP methods like GET, POST", p.getMethods());
        }
      }
      List<Route> routes = new ArrayList<>();
      for (String path : p.getPath()) {
        PathPattern pattern;
        try {
          pattern = PathPatternParser.defaultInstance.parse(path);
        } catch (RuntimeException e) {
          throw invalid(
              at.apply("path"), "a path pattern like /api/** (" + e.getMessage() + ")", path);
        }
        routes.add(new Route(pattern, methods, List.of()));
      }
      return routes;
    }

    /** The decision {@code build} makes, its own checks (like maximumKeys) naming the limit. */
    private static Object built(UnaryOperator<String> at, Supplier<Object> build) {
      try {
        return build.get();
      } catch (IllegalArgumentException e) {
        throw Checks.atProperty(at.apply(""), e);
      }
    }

    boolean matches(String method, PathContainer path) {
      for (Route r : routes) {
        if (r.matches(method, path)) {
          return true;
        }
      }
      return false;
    }

    /** Decides; adds this limit's RateLimit member to {@code states}; the denial, or null. */
    Answer decide(LimitedRequest request, List<String> states) {
      String k = key.apply(request);
      if (k == null || k.isEmpty()) {
        k = NO_KEY;
      }
      if (decision instanceof RateLimiter limiter) {
        RateDecision d = limiter.tryAcquire(k);
        if (d.allowed()) {
          states.add(quoted + ";r=" + d.remaining());
          return null;
        }
        long retry = Math.max(1, seconds(d.retryAfter()));
        states.add(quoted + ";r=0;t=" + retry);
        return new Answer(
            429,
            null,
            null,
            retry,
            "rate limit \""
                + name
                + "\" of "
                + d.limit()
                + " requests reached; retry in "
                + retry
                + " s\n");
      }
      SumCap cap = (SumCap) decision;
      BigDecimal a = amountOf(request);
      SumDecision d = cap.tryAdd(k, a);
      String remaining = d.remaining().setScale(0, RoundingMode.DOWN).toPlainString();
      if (d.allowed()) {
        states.add(quoted + ";r=" + remaining);
        return null;
      }
      if (d.exceedsCap()) {
        states.add(quoted + ";r=" + remaining);
        return new Answer(
            429,
            null,
            null,
            -1,
            "amount " + d.amount() + " is above the cap " + d.cap() + " of \"" + name + "\"\n");
      }
      long retry = Math.max(1, seconds(d.retryAfter().orElseThrow()));
      states.add(quoted + ";r=" + remaining + ";t=" + retry);
      return new Answer(
          429,
          null,
          null,
          retry,
          "cap \"" + name + "\" of " + d.cap() + " reached; retry in " + retry + " s\n");
    }

    private BigDecimal amountOf(LimitedRequest request) {
      Object v = amount.apply(request);
      if (v == null) {
        throw new BadAmount("missing amount (" + amountSource + ") for \"" + name + "\"\n");
      }
      BigDecimal a;
      try {
        a = v instanceof BigDecimal b ? b : new BigDecimal(v.toString().trim());
      } catch (NumberFormatException e) {
        throw new BadAmount(
            "amount (" + amountSource + ") for \"" + name + "\" is not a number: " + v + "\n");
      }
      if (a.signum() < 0) {
        throw new BadAmount(
            "amount (" + amountSource + ") for \"" + name + "\" is negative: " + a + "\n");
      }
      try {
        ((SumCap) decision).config().toUnits(a);
      } catch (IllegalArgumentException e) {
        throw new BadAmount(
            "amount (" + amountSource + ") for \"" + name + "\": " + e.getMessage() + "\n");
      }
      return a;
    }
  }

  private static Function<LimitedRequest, String> keyOf(String at, String spec) {
    if (spec.equals("ip")) {
      return LimitedRequest::getRemoteAddress;
    }
    if (spec.equals("principal")) {
      return LimitedRequest::getPrincipal;
    }
    if (spec.startsWith("header:") && spec.length() > "header:".length()) {
      String header = spec.substring("header:".length()).trim();
      return r -> r.header(header);
    }
    if (spec.startsWith("expression:") && spec.length() > "expression:".length()) {
      Expression e = parse(at, spec.substring("expression:".length()));
      SimpleEvaluationContext context =
          SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
      return r -> {
        Object v = e.getValue(context, r);
        return v == null ? null : v.toString();
      };
    }
    throw invalid(at, "ip, principal, header:NAME or expression:SPEL", spec);
  }

  private static Function<LimitedRequest, Object> amountSourceOf(String at, String spec) {
    if (spec.startsWith("header:") && spec.length() > "header:".length()) {
      String header = spec.substring("header:".length()).trim();
      return r -> r.header(header);
    }
    if (spec.startsWith("attribute:") && spec.length() > "attribute:".length()) {
      String attribute = spec.substring("attribute:".length()).trim();
      return r -> r.attribute(attribute);
    }
    throw invalid(at, "header:NAME or attribute:NAME (a sum cap needs an amount)", spec);
  }

  private static Expression parse(String at, String expression) {
    try {
      return new SpelExpressionParser().parseExpression(expression);
    } catch (ParseException e) {
      throw invalid(at, "a SpEL expression (" + e.getMessage() + ")", expression);
    }
  }

  private static IllegalArgumentException invalid(String at, String expected, Object was) {
    return Checks.invalid(at, expected, was);
  }
}
