package io.ringtail.spring.limit;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code ringtail.limits} of a Spring WebFlux application, with the same engine and answers as
 * {@link RingtailLimitFilter}. A decision that may wait on Redis is made on Reactor's
 * bounded-elastic scheduler, never on the event loop; in-process decisions are made inline.
 * Thread-safe.
 */
public final class RingtailLimitWebFilter implements WebFilter, Ordered {
  private final HttpLimits limits;
  private final Function<ServerWebExchange, Mono<Void>> routes;

  RingtailLimitWebFilter(HttpLimits limits) {
    this(limits, exchange -> Mono.empty());
  }

  /**
   * {@code routes} marks an exchange the filter answers itself with its route, so the answer is
   * observed under the route's URI template ({@link HandlerMappings.WebFluxRoutes}).
   */
  RingtailLimitWebFilter(HttpLimits limits, Function<ServerWebExchange, Mono<Void>> routes) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.routes = Objects.requireNonNull(routes, "routes");
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    PathContainer path = exchange.getRequest().getPath().pathWithinApplication();
    String method = exchange.getRequest().getMethod().name();
    if (!limits.applies(method, path)) {
      return chain.filter(exchange);
    }
    Mono<String> principal =
        limits.needsPrincipal()
            ? exchange.getPrincipal().map(Principal::getName).defaultIfEmpty("")
            : Mono.just("");
    return principal.flatMap(
        name -> {
          Reactive request = new Reactive(exchange, path.value(), name.isEmpty() ? null : name);
          // an Optional, not an empty Mono, for "no limit": the chain's own Mono<Void> is empty
          Mono<Optional<LimitAnswer>> answer =
              limits.remote()
                  ? Mono.fromCallable(() -> Optional.ofNullable(limits.decide(request, path)))
                      .subscribeOn(Schedulers.boundedElastic())
                  : Mono.fromSupplier(() -> Optional.ofNullable(limits.decide(request, path)));
          return answer.flatMap(
              a -> a.isPresent() ? answer(exchange, chain, a.get()) : chain.filter(exchange));
        });
  }

  private Mono<Void> answer(ServerWebExchange exchange, WebFilterChain chain, LimitAnswer answer) {
    HttpHeaders headers = exchange.getResponse().getHeaders();
    RateLimitFields fields = answer.fields();
    headers.set(RateLimitFields.POLICY_FIELD, fields.policy());
    String state = fields.state(); // none for a 400 of the first limit's bad amount
    if (state != null) {
      headers.set(RateLimitFields.STATE_FIELD, state);
    }
    return answer instanceof LimitAnswer.Refusal refusal
        ? refuse(exchange, refusal)
        : chain.filter(exchange);
  }

  /** Answers the exchange itself, under its route. */
  private Mono<Void> refuse(ServerWebExchange exchange, LimitAnswer.Refusal refusal) {
    ServerHttpResponse response = exchange.getResponse();
    HttpHeaders headers = response.getHeaders();
    if (refusal.retryAfter() >= 0) {
      headers.set(HttpHeaders.RETRY_AFTER, Long.toString(refusal.retryAfter()));
    }
    response.setStatusCode(HttpStatus.valueOf(refusal.status()));
    headers.setContentType(new MediaType("text", "plain", StandardCharsets.UTF_8));
    return routes
        .apply(exchange)
        .then(
            Mono.defer(
                () -> {
                  DataBuffer body =
                      response
                          .bufferFactory()
                          .wrap(refusal.body().getBytes(StandardCharsets.UTF_8));
                  return response.writeWith(Mono.just(body));
                }));
  }

  @Override
  public int getOrder() {
    return RingtailLimitFilter.ORDER;
  }

  @Override
  public String toString() {
    // the limits built so far: building the annotated ones needs the handler mappings
    return "RingtailLimitWebFilter" + limits;
  }

  /** An exchange as a limit reads it. */
  private record Reactive(ServerWebExchange exchange, String path, String principal)
      implements LimitedRequest {
    @Override
    public String getMethod() {
      return exchange.getRequest().getMethod().name();
    }

    @Override
    public String getPath() {
      return path;
    }

    @Override
    public String header(String name) {
      return exchange.getRequest().getHeaders().getFirst(name);
    }

    @Override
    public Object attribute(String name) {
      return exchange.getAttribute(name);
    }

    @Override
    public String getRemoteAddress() {
      InetSocketAddress a = exchange.getRequest().getRemoteAddress();
      return a == null || a.getAddress() == null ? null : a.getAddress().getHostAddress();
    }

    @Override
    public String getPrincipal() {
      return principal;
    }
  }
}
