package io.ringtail.spring.limit;

import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.internal.Checks;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
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
 * One limit of {@link HttpLimits}, configured ({@code ringtail.limits.<name>}) or annotated ({@link
 * RingtailLimit}): which requests it names, their key and amount, its decision, and its answer.
 * Built once, checking its settings and naming the property or attribute at fault. Thread-safe.
 */
final class HttpLimit {
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]*");
  private static final Pattern METHOD = Pattern.compile("[A-Z]+");

  final String name;
  final String source;
  final List<HttpLimits.Route> routes;
  final Function<LimitedRequest, String> key;
  final boolean needsPrincipal;
  final Function<LimitedRequest, Object> amount;
  final String amountSource;
  final Object decision;
  final String policy;
  final String quoted;

  /** Requests answered 503 because this limit's decision could not be made. */
  final LongAdder unavailable = new LongAdder();

  /** A limit of {@code p}'s path and methods, or of {@code routes} when not null. */
  HttpLimit(
      String name,
      RingtailLimitProperties.Limit p,
      LimitDecisions decisions,
      UnaryOperator<String> at,
      List<HttpLimits.Route> routes) {
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
    long window = HttpLimits.seconds(p.getWindow());
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

  private static List<HttpLimits.Route> routesOf(
      UnaryOperator<String> at, RingtailLimitProperties.Limit p) {
    List<String> paths = new ArrayList<>();
    if (p.getPath() != null) {
      paths.addAll(p.getPath());
    }
    if (p.getPaths() != null) {
      paths.addAll(p.getPaths());
    }
    if (paths.isEmpty()) {
      throw invalid(at.apply("path"), "at least one path pattern (path or paths)", p.getPath());
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
    List<HttpLimits.Route> routes = new ArrayList<>();
    for (String path : paths) {
      PathPattern pattern;
      try {
        pattern = PathPatternParser.defaultInstance.parse(path);
      } catch (RuntimeException e) {
        throw invalid(
            at.apply("path"), "a path pattern like /api/** (" + e.getMessage() + ")", path);
      }
      routes.add(new HttpLimits.Route(pattern, methods, List.of()));
    }
    return routes;
  }

  /**
   * The decision {@code build} makes, its own checks naming the limit; a check of {@code
   * maximumKeys} names the property ({@code maximum-keys}) or attribute.
   */
  private static Object built(UnaryOperator<String> at, Supplier<Object> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      String message = e.getMessage() == null ? "" : e.getMessage();
      throw message.startsWith("maximumKeys ")
          ? Checks.asProperty("maximumKeys", at.apply("maximumKeys"), e)
          : Checks.atProperty(at.apply(""), e);
    }
  }

  boolean matches(String method, PathContainer path) {
    for (HttpLimits.Route r : routes) {
      if (r.matches(method, path)) {
        return true;
      }
    }
    return false;
  }

  /** Decides; adds this limit's RateLimit member to {@code states}; the denial, or null. */
  HttpLimits.Answer decide(LimitedRequest request, List<String> states) {
    String k = key.apply(request);
    if (k == null || k.isEmpty()) {
      k = HttpLimits.NO_KEY;
    }
    if (decision instanceof RateLimiter limiter) {
      RateDecision d = limiter.tryAcquire(k);
      if (d.allowed()) {
        // nothing remains: t, the seconds until the key's next request would be admitted
        states.add(
            quoted
                + ";r="
                + d.remaining()
                + (d.remaining() == 0
                    ? ";t=" + Math.max(1, HttpLimits.seconds(d.retryAfter()))
                    : ""));
        return null;
      }
      long retry = Math.max(1, HttpLimits.seconds(d.retryAfter()));
      states.add(quoted + ";r=0;t=" + retry);
      return new HttpLimits.Answer(
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
      return new HttpLimits.Answer(
          429,
          null,
          null,
          -1,
          "amount " + d.amount() + " is above the cap " + d.cap() + " of \"" + name + "\"\n");
    }
    long retry = Math.max(1, HttpLimits.seconds(d.retryAfter().orElseThrow()));
    states.add(quoted + ";r=" + remaining + ";t=" + retry);
    return new HttpLimits.Answer(
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

  /** An amount a request carries that a sum cap cannot take. */
  static final class BadAmount extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadAmount(String message) {
      super(message, null, false, false);
    }
  }
}
