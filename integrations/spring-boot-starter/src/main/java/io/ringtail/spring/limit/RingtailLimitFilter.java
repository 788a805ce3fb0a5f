package io.ringtail.spring.limit;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Objects;
import java.util.function.Consumer;
import org.springframework.core.Ordered;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The {@code ringtail.limits} of a Spring MVC (servlet) application: decides every request a limit
 * matches before it reaches a handler, adds the {@code RateLimit-Policy} and {@code RateLimit}
 * header fields to its answer, and answers a denied one {@code 429 Too Many Requests} with {@code
 * Retry-After} itself. Requests no limit matches pass untouched. Ordered after Spring Security's
 * filter chain (so {@code principal} keys see the authenticated user) and after the observation
 * filter (so a 429 is observed like any answer, under its route's URI template). Thread-safe.
 */
public final class RingtailLimitFilter extends OncePerRequestFilter implements Ordered {
  /** The filter's order: after Spring Security's filter chain (-100). */
  public static final int ORDER = 0;

  private final HttpLimits limits;
  private final Consumer<HttpServletRequest> routes;

  RingtailLimitFilter(HttpLimits limits) {
    this(limits, request -> {});
  }

  /**
   * {@code routes} marks a request the filter answers itself with its route, so the answer is
   * observed under the route's URI template ({@link HandlerMappings.MvcRoutes}).
   */
  RingtailLimitFilter(HttpLimits limits, Consumer<HttpServletRequest> routes) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.routes = Objects.requireNonNull(routes, "routes");
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    String within =
        context != null && !context.isEmpty() && uri.startsWith(context)
            ? uri.substring(context.length())
            : uri;
    PathContainer path = PathContainer.parsePath(within.isEmpty() ? "/" : within);
    if (!limits.applies(request.getMethod(), path)) {
      chain.doFilter(request, response);
      return;
    }
    LimitAnswer answer = limits.decide(new Servlet(request, within), path);
    if (answer == null) {
      chain.doFilter(request, response);
      return;
    }
    RateLimitFields fields = answer.fields();
    response.setHeader(RateLimitFields.POLICY_FIELD, fields.policy());
    String state = fields.state(); // none for a 400 of the first limit's bad amount
    if (state != null) {
      response.setHeader(RateLimitFields.STATE_FIELD, state);
    }
    if (answer instanceof LimitAnswer.Refusal refusal) {
      refuse(request, response, refusal);
    } else {
      chain.doFilter(request, response);
    }
  }

  /** Answers {@code request} itself, under its route. */
  private void refuse(
      HttpServletRequest request, HttpServletResponse response, LimitAnswer.Refusal refusal)
      throws IOException {
    routes.accept(request);
    if (refusal.retryAfter() >= 0) {
      response.setHeader("Retry-After", Long.toString(refusal.retryAfter()));
    }
    response.setStatus(refusal.status());
    response.setContentType("text/plain;charset=UTF-8");
    byte[] body = refusal.body().getBytes(StandardCharsets.UTF_8);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  @Override
  public int getOrder() {
    return ORDER;
  }

  @Override
  public String toString() {
    // the limits built so far: building the annotated ones needs the handler mappings
    return "RingtailLimitFilter" + limits;
  }

  /** A servlet request as a limit reads it. */
  private record Servlet(HttpServletRequest request, String path) implements LimitedRequest {
    @Override
    public String getMethod() {
      return request.getMethod();
    }

    @Override
    public String getPath() {
      return path;
    }

    @Override
    public String header(String name) {
      return request.getHeader(name);
    }

    @Override
    public Object attribute(String name) {
      return request.getAttribute(name);
    }

    @Override
    public String getRemoteAddress() {
      return request.getRemoteAddr();
    }

    @Override
    public String getPrincipal() {
      Principal p = request.getUserPrincipal();
      return p == null ? null : p.getName();
    }
  }
}
