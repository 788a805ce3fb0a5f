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
 */
final class HttpLimits {
  private static final System.Logger LOG = System.getLogger(HttpLimits.class.getName());
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]*");
  private static final Pattern METHOD = Pattern.compile("[A-Z]+");

  /** The key of requests that have none (no such header, no principal). */
  static final String NO_KEY = "-";

  private final List<Limit> limits;
  private final boolean remote;
  private final boolean needsPrincipal;
  private final long unavailableRetryAfterSeconds;
  private final AtomicBoolean failing = new AtomicBoolean();

  HttpLimits(Map<String, RingtailLimitProperties.Limit> byName, LimitDecisions decisions) {
    Objects.requireNonNull(byName, "limits");
    List<Limit> built = new ArrayList<>();
    byName.forEach((name, limit) -> built.add(new Limit(name, limit, decisions)));
    this.limits = List.copyOf(built);
    this.remote = decisions.remote();
    this.needsPrincipal = limits.stream().anyMatch(l -> l.needsPrincipal);
    this.unavailableRetryAfterSeconds = seconds(decisions.unavailableRetryAfter());
  }

  /** Whether a decision may wait on I/O. */
  boolean remote() {
    return remote;
  }

  /** Whether some limit's key reads the principal (a WebFlux filter resolves it first then). */
  boolean needsPrincipal() {
    return needsPrincipal;
  }

  /** The decisions by limit name, for meters. */
  Map<String, CountsDecisions> decisions() {
    Map<String, CountsDecisions> byName = new LinkedHashMap<>();
    limits.forEach(l -> byName.put(l.name, (CountsDecisions) l.decision));
    return Collections.unmodifiableMap(byName);
  }

  /** Whether any limit applies to a request for {@code path} with {@code method}: cheap, no key. */
  boolean applies(String method, PathContainer path) {
    for (Limit l : limits) {
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
    for (Limit l : limits) {
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
          LOG.log(Level.INFO, "ringtail.limits." + l.name + ": decisions are made again");
        }
      } catch (BadAmount e) {
        return new Answer(400, policies, states, -1, e.getMessage());
      } catch (RuntimeException e) {
        if (failing.compareAndSet(false, true)) {
          LOG.log(
              Level.WARNING,
              "ringtail.limits."
                  + l.name
                  + ": the decision could not be made; answering 503 until one can be",
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

  /** One configured limit. */
  private static final class Limit {
    final String name;
    final List<PathPattern> paths;
    final Set<String> methods;
    final Function<LimitedRequest, String> key;
    final boolean needsPrincipal;
    final Function<LimitedRequest, Object> amount;
    final String amountSource;
    final Object decision;
    final String policy;
    final String quoted;

    Limit(String name, RingtailLimitProperties.Limit p, LimitDecisions decisions) {
      String at = "ringtail.limits." + name;
      if (!NAME.matcher(name).matches()) {
        throw invalid(at, "a name of lowercase letters, digits, '_', '.' and '-'", name);
      }
      this.name = name;
      this.quoted = "\"" + name + "\"";
      if (p.getPath() == null || p.getPath().isEmpty()) {
        throw invalid(at + ".path", "at least one path pattern", p.getPath());
      }
      List<PathPattern> patterns = new ArrayList<>();
      for (String path : p.getPath()) {
        try {
          patterns.add(PathPatternParser.defaultInstance.parse(path));
        } catch (RuntimeException e) {
          throw invalid(at + ".path", "a path pattern like /api/** (" + e.getMessage() + ")", path);
        }
      }
      this.paths = List.copyOf(patterns);
      this.methods =
          p.getMethods() == null
              ? Set.of()
              : p.getMethods().stream()
                  .map(m -> m.trim().toUpperCase(Locale.ROOT))
                  .collect(Collectors.toUnmodifiableSet());
      for (String m : methods) {
        if (!METHOD.matcher(m).matches()) {
          throw invalid(at + ".methods", "HTTP methods like GET, POST", p.getMethods());
        }
      }
      String keySpec = p.getKey() == null ? "" : p.getKey().trim();
      this.needsPrincipal = keySpec.equals("principal") || keySpec.startsWith("expression:");
      this.key = keyOf(at + ".key", keySpec);
      BigDecimal limit = p.getLimit();
      if (limit == null || limit.signum() <= 0) {
        throw invalid(at + ".limit", "a positive number", limit);
      }
      if (p.getWindow() == null || p.getWindow().isNegative() || p.getWindow().isZero()) {
        throw invalid(at + ".window", "a positive duration", p.getWindow());
      }
      long window = seconds(p.getWindow());
      RingtailLimitProperties.Kind kind =
          p.getKind() == null ? RingtailLimitProperties.Kind.SLIDING_LOG : p.getKind();
      if (kind == RingtailLimitProperties.Kind.SUM_CAP) {
        this.amountSource = p.getAmount() == null ? "" : p.getAmount().trim();
        this.amount = amountSourceOf(at + ".amount", amountSource);
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
          throw Checks.atProperty(at, e);
        }
        this.decision = decisions.sumCap(name, config, p.getMaximumKeys());
        this.policy =
            quoted + ";q=" + limit.setScale(0, RoundingMode.DOWN).toPlainString() + ";w=" + window;
      } else {
        if (p.getAmount() != null) {
          throw invalid(
              at + ".amount",
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
          throw invalid(at + ".limit", "a whole number of requests", limit);
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
          throw Checks.atProperty(at, e);
        }
        this.decision =
            decisions.rateLimiter(
                name, config, kind == RingtailLimitProperties.Kind.BUCKETED, p.getMaximumKeys());
        this.policy = quoted + ";q=" + requests + ";w=" + window;
      }
    }

    boolean matches(String method, PathContainer path) {
      if (!methods.isEmpty() && !methods.contains(method)) {
        return false;
      }
      for (PathPattern p : paths) {
        if (p.matches(path)) {
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
