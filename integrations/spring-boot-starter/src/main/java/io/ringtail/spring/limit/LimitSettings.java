package io.ringtail.spring.limit;

import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.internal.Checks;
import io.ringtail.spring.limit.RingtailLimitProperties.Kind;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * One limit's settings as read and checked, configured ({@code ringtail.limits.<name>}) or
 * annotated ({@link RingtailLimit}): its name, the requests it names, their key, its kind and the
 * configuration of its decision. A bad setting is an {@link IllegalArgumentException} naming the
 * property or attribute ({@code at}). Immutable; its functions read a request on its thread.
 *
 * @param source the limit as a message names it: its property prefix or annotation
 * @param needsPrincipal whether the key reads the principal
 * @param requests a rate limit's configuration (null for a sum cap)
 * @param amounts a sum cap's configuration (null for a rate limit)
 * @param amount where a sum cap reads a request's amount (null for a rate limit)
 * @param at names a setting ("" the whole limit, "maximumKeys" its property or attribute)
 */
record LimitSettings(
    String name,
    String source,
    List<HttpLimits.Route> routes,
    Function<LimitedRequest, String> key,
    boolean needsPrincipal,
    Kind kind,
    RateLimitConfig requests,
    SumCapConfig amounts,
    Amount amount,
    long maximumKeys,
    UnaryOperator<String> at) {
  /** The kinds as the properties spell them, for messages. */
  static final String KINDS = "sliding-log, bucketed or sum-cap";

  /** The key of requests that have none (no such header, no principal). */
  static final String NO_KEY = "-";

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]*");
  private static final Pattern METHOD = Pattern.compile("[A-Z]+");

  /**
   * The settings {@code p} of the limit {@code name}, on {@code time}: its path and methods, or
   * {@code routes} when not null.
   */
  static LimitSettings of(
      String name,
      RingtailLimitProperties.Limit p,
      TimeSource time,
      UnaryOperator<String> at,
      List<HttpLimits.Route> routes) {
    if (!NAME.matcher(name).matches()) {
      throw Checks.invalid(
          at.apply("name"), "a name of lowercase letters, digits, '_', '.' and '-'", name);
    }
    List<HttpLimits.Route> limited = routes != null ? List.copyOf(routes) : routesOf(at, p);
    String keySpec = p.getKey() == null ? "" : p.getKey().trim();
    Function<LimitedRequest, String> key = keyOf(at.apply("key"), keySpec);
    boolean needsPrincipal = keySpec.equals("principal") || keySpec.startsWith("expression:");
    BigDecimal limit = p.getLimit();
    if (limit == null || limit.signum() <= 0) {
      throw Checks.invalid(at.apply("limit"), "a positive number", limit);
    }
    if (p.getWindow() == null || p.getWindow().isNegative() || p.getWindow().isZero()) {
      throw Checks.invalid(at.apply("window"), "a positive duration", p.getWindow());
    }
    Kind kind = p.getKind() == null ? Kind.SLIDING_LOG : p.getKind();
    if (kind == Kind.SUM_CAP) {
      String amountSource = p.getAmount() == null ? "" : p.getAmount().trim();
      Amount amount = new Amount(amountSource, amountOf(at.apply("amount"), amountSource));
      SumCapConfig config;
      try {
        config =
            SumCapConfig.builder()
                .cap(limit)
                .scale(p.getScale())
                .window(p.getWindow())
                .timeSource(time)
                .build();
      } catch (IllegalArgumentException e) {
        throw Checks.atProperty(at.apply(""), e);
      }
      return new LimitSettings(
          name,
          at.apply(""),
          limited,
          key,
          needsPrincipal,
          kind,
          null,
          config,
          amount,
          p.getMaximumKeys(),
          at);
    }
    if (p.getAmount() != null) {
      throw Checks.invalid(
          at.apply("amount"),
          "unset for kind " + nameOf(kind) + " (it is for kind sum-cap)",
          p.getAmount());
    }
    int requests;
    try {
      requests = limit.intValueExact();
    } catch (ArithmeticException e) {
      throw Checks.invalid(at.apply("limit"), "a whole number of requests", limit);
    }
    RateLimitConfig config;
    try {
      config =
          RateLimitConfig.builder().limit(requests).window(p.getWindow()).timeSource(time).build();
    } catch (IllegalArgumentException e) {
      throw Checks.atProperty(at.apply(""), e);
    }
    return new LimitSettings(
        name,
        at.apply(""),
        limited,
        key,
        needsPrincipal,
        kind,
        config,
        null,
        null,
        p.getMaximumKeys(),
        at);
  }

  /** {@code kind} as the properties spell it, like {@code sliding-log}. */
  static String nameOf(Kind kind) {
    return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The limit's policy in the header fields: its quota in whole requests or units, its window. */
  RateLimitFields.Policy policy() {
    return requests != null
        ? new RateLimitFields.Policy(name, requests.limit(), requests.window())
        : new RateLimitFields.Policy(
            name, amounts.cap().setScale(0, RoundingMode.DOWN).longValueExact(), amounts.window());
  }

  /** The key {@code request} is counted under; {@link #NO_KEY} if it has none. */
  String keyOf(LimitedRequest request) {
    String k = key.apply(request);
    return k == null || k.isEmpty() ? NO_KEY : k;
  }

  /**
   * Where a sum cap reads a request's amount ({@code source}, as configured) and how: a {@link
   * BigDecimal}, or a value whose text is a number.
   */
  record Amount(String source, Function<LimitedRequest, Object> read) {}

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
      throw Checks.invalid(
          at.apply("path"), "at least one path pattern (path or paths)", p.getPath());
    }
    Set<String> methods =
        p.getMethods() == null
            ? Set.of()
            : p.getMethods().stream()
                .map(m -> m.trim().toUpperCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
    for (String m : methods) {
      if (!METHOD.matcher(m).matches()) {
        throw Checks.invalid(at.apply("methods"), "HTTP methods like GET, POST", p.getMethods());
      }
    }
    List<HttpLimits.Route> routes = new ArrayList<>();
    for (String path : paths) {
      PathPattern pattern;
      try {
        pattern = PathPatternParser.defaultInstance.parse(path);
      } catch (RuntimeException e) {
        throw Checks.invalid(
            at.apply("path"), "a path pattern like /api/** (" + e.getMessage() + ")", path);
      }
      routes.add(new HttpLimits.Route(pattern, methods, List.of()));
    }
    return routes;
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
    throw Checks.invalid(at, "ip, principal, header:NAME or expression:SPEL", spec);
  }

  private static Function<LimitedRequest, Object> amountOf(String at, String spec) {
    if (spec.startsWith("header:") && spec.length() > "header:".length()) {
      String header = spec.substring("header:".length()).trim();
      return r -> r.header(header);
    }
    if (spec.startsWith("attribute:") && spec.length() > "attribute:".length()) {
      String attribute = spec.substring("attribute:".length()).trim();
      return r -> r.attribute(attribute);
    }
    throw Checks.invalid(at, "header:NAME or attribute:NAME (a sum cap needs an amount)", spec);
  }

  private static Expression parse(String at, String expression) {
    try {
      return new SpelExpressionParser().parseExpression(expression);
    } catch (ParseException e) {
      throw Checks.invalid(at, "a SpEL expression (" + e.getMessage() + ")", expression);
    }
  }
}
