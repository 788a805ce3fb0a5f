package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.DecisionCounts;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.AppRequests;
import io.ringtail.spring.Await;
import io.ringtail.spring.observation.ObservationWindows;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * {@code ringtail.limits} in-process, over HTTP on a random port, on Spring MVC and on WebFlux: the
 * decisions on an injected clock, the status and header fields a client sees against them, the
 * meters, and the start refusing a limit it cannot apply.
 */
class HttpLimitsTest {
  private static final String[] COMMON = {
    "--server.port=0",
    "--spring.main.banner-mode=off",
    "--management.endpoints.web.exposure.include=prometheus",
    "--ringtail.limits.api.path=/api/**",
    "--ringtail.limits.api.key=header:X-Api-Key",
    "--ringtail.limits.api.limit=3",
    "--ringtail.limits.spend.path=/pay",
    "--ringtail.limits.spend.methods=POST",
    "--ringtail.limits.spend.kind=sum-cap",
    "--ringtail.limits.spend.key=expression:header('X-Tenant') + '/' + method",
    "--ringtail.limits.spend.amount=header:X-Amount",
    "--ringtail.limits.spend.limit=10",
    "--ringtail.limits.spend.window=1h",
    "--ringtail.limits.burst.path=/burst",
    "--ringtail.limits.burst.kind=bucketed",
    "--ringtail.limits.burst.limit=2",
    "--ringtail.limits.burst.window=16s",
    "--ringtail.limits.credits.path=/credits",
    "--ringtail.limits.credits.kind=sum-cap",
    "--ringtail.limits.credits.amount=attribute:cost",
    "--ringtail.limits.credits.limit=5",
    "--ringtail.limits.odd.path=/odd",
    "--ringtail.limits.odd.key=expression:header()",
    "--ringtail.limits.odd.limit=5",
    "--ringtail.limits.user.path=/me",
    "--ringtail.limits.user.key=principal",
    "--ringtail.limits.user.limit=2",
    "--ringtail.limits.pair.path=/pair/a",
    "--ringtail.limits.pair.paths=/pair/b,/pair/c",
    "--ringtail.limits.pair.limit=2"
  };

  static final ManualTimeSource TIME = new ManualTimeSource(1_000_000_000_000L);

  private ConfigurableApplicationContext context;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @RestController
  static class App {
    final AtomicInteger quotes = new AtomicInteger();

    @GetMapping({
      "/api/quote",
      "/open",
      "/burst",
      "/credits",
      "/odd",
      "/me",
      "/pair/a",
      "/pair/b",
      "/pair/c"
    })
    String quote() {
      quotes.incrementAndGet();
      return "quote";
    }

    @PostMapping("/pay")
    String pay() {
      return "paid";
    }

    @GetMapping("/api/items/{id}")
    String item(@PathVariable String id) {
      return "item " + id;
    }

    @Bean
    LimitDecisions manualTimeDecisions() {
      return LimitDecisions.inProcess(TIME);
    }

    /** What an application's own filter does before the limits: price the request. */
    @Bean
    jakarta.servlet.Filter pricing() {
      return new OrderedPricing();
    }

    @Bean
    WebFilter reactivePricing() {
      return new OrderedReactivePricing();
    }
  }

  static final class OrderedPricing extends OncePerRequestFilter implements Ordered {
    @Override
    protected void doFilterInternal(
        HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      if (request.getHeader("X-Cost-In") != null) {
        request.setAttribute("cost", new BigDecimal(request.getHeader("X-Cost-In")));
      }
      String user = request.getHeader("X-User");
      // what an authentication filter does: the request carries its principal from here on
      chain.doFilter(
          user == null
              ? request
              : new jakarta.servlet.http.HttpServletRequestWrapper(request) {
                @Override
                public java.security.Principal getUserPrincipal() {
                  return () -> user;
                }
              },
          response);
    }

    @Override
    public int getOrder() {
      return -10;
    }
  }

  static final class OrderedReactivePricing implements WebFilter, Ordered {
    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
      String cost = exchange.getRequest().getHeaders().getFirst("X-Cost-In");
      if (cost != null) {
        exchange.getAttributes().put("cost", new BigDecimal(cost));
      }
      String user = exchange.getRequest().getHeaders().getFirst("X-User");
      if (user != null) {
        java.security.Principal principal = () -> user;
        return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
      }
      return chain.filter(exchange);
    }

    @Override
    public int getOrder() {
      return -10;
    }
  }

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  private void start(String type, String... extra) {
    List<String> args = new ArrayList<>(List.of(COMMON));
    args.add("--spring.main.web-application-type=" + type);
    for (String e : extra) { // replaces a common value: a repeated one would be joined to it
      args.removeIf(a -> a.startsWith(e.substring(0, e.indexOf('=') + 1)));
      args.add(e);
    }
    context = SpringApplication.run(App.class, args.toArray(String[]::new));
  }

  private HttpResponse<String> send(String method, String path, String... headers)
      throws Exception {
    return AppRequests.send(context, method, path, headers);
  }

  private static Optional<String> header(HttpResponse<?> r, String name) {
    return AppRequests.header(r, name);
  }

  private DecisionCounts counts(String limit) {
    return context.getBean(HttpLimits.class).decisions().get(limit).decisionCounts();
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void rateLimit_admitsTheLimit_thenAnswers429_withRetryAfterFromTheDecision(String type)
      throws Exception {
    start(type);
    assertThat(context.getBean(HttpLimits.class).remote()).isFalse();
    String[] alice = {"X-Api-Key", "alice-" + type};
    for (int remaining = 2; remaining >= 0; remaining--) {
      HttpResponse<String> ok = send("GET", "/api/quote", alice);
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("quote");
      assertThat(header(ok, "RateLimit-Policy")).hasValue("\"api\";q=3;w=60");
      // t, the seconds until the next would be admitted, once nothing remains
      assertThat(header(ok, "RateLimit"))
          .hasValue("\"api\";r=" + remaining + (remaining == 0 ? ";t=60" : ""));
      assertThat(header(ok, "Retry-After")).isEmpty();
    }
    TIME.advance(Duration.ofSeconds(20));
    HttpResponse<String> denied = send("GET", "/api/quote", alice);
    // the three admitted at t0 leave the window at t0 + 60 s: 40 s from now, exactly
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).hasValue("40");
    assertThat(header(denied, "RateLimit")).hasValue("\"api\";r=0;t=40");
    assertThat(header(denied, "RateLimit-Policy")).hasValue("\"api\";q=3;w=60");
    assertThat(denied.body()).contains("rate limit \"api\" of 3 requests reached; retry in 40 s");

    // another key has its own limit; a path no limit names has no header fields
    HttpResponse<String> bob = send("GET", "/api/quote", "X-Api-Key", "bob-" + type);
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(header(bob, "RateLimit")).hasValue("\"api\";r=2");
    HttpResponse<String> open = send("GET", "/open", alice);
    assertThat(open.statusCode()).isEqualTo(200);
    assertThat(header(open, "RateLimit-Policy")).isEmpty();

    TIME.advance(Duration.ofSeconds(40));
    HttpResponse<String> again = send("GET", "/api/quote", alice);
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(header(again, "RateLimit")).hasValue("\"api\";r=2");

    assertThat(counts("api").allowed()).isEqualTo(5);
    assertThat(counts("api").denied()).isEqualTo(1);
    // the handler ran once per admitted request (and once for /open), never for the denied one
    assertThat(context.getBean(App.class).quotes.get()).isEqualTo(6);
    String metrics = scrape();
    if (metrics != null) {
      assertThat(metrics)
          .contains(
              "ringtail_decisions_total{decision=\"api\",outcome=\"allowed\",type=\"rate_limiter\"} 5.0")
          .contains(
              "ringtail_decisions_total{decision=\"api\",outcome=\"denied\",type=\"rate_limiter\"} 1.0");
    }
  }

  /** The Prometheus page on Spring MVC; null on WebFlux, where the test has no Actuator server. */
  private String scrape() throws Exception {
    HttpResponse<String> r = send("GET", "/actuator/prometheus");
    return r.statusCode() == 200 ? r.body() : null;
  }

  /**
   * The answers the filter gives itself (a 429, a 503) are observed under the route's URI template,
   * so the route's endpoint window (and its anomaly detectors) see its own denials.
   */
  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void answersOfTheFilter_areObservedUnderTheirRoutesTemplate(String type) throws Exception {
    start(type);
    String[] key = {"X-Api-Key", "routes-" + type};
    for (int id = 1; id <= 3; id++) {
      assertThat(send("GET", "/api/items/" + id, key).statusCode()).isEqualTo(200);
    }
    assertThat(send("GET", "/api/items/4", key).statusCode()).isEqualTo(429);
    assertThat(send("GET", "/odd").statusCode()).isEqualTo(503);
    KeyedWindows http =
        context.getBean(ObservationWindows.class).windows().get("http.server.requests");
    Map<String, Long> counts = new HashMap<>();
    Await.until(
        "the five requests observed",
        () -> {
          counts.clear();
          http.snapshots()
              .forEach(
                  (k, snapshot) -> {
                    Map<String, String> tags = new HashMap<>();
                    ObservationWindows.tagsOf(k).forEach(t -> tags.put(t.getKey(), t.getValue()));
                    counts.merge(
                        tags.get("uri") + " " + tags.get("status"), snapshot.count(), Long::sum);
                  });
          return counts.values().stream().mapToLong(Long::longValue).sum() >= 5;
        });
    assertThat(counts)
        .containsEntry("/api/items/{id} 200", 3L)
        .containsEntry("/api/items/{id} 429", 1L)
        .containsEntry("/odd 503", 1L)
        .doesNotContainKey("UNKNOWN 429")
        .doesNotContainKey("UNKNOWN 503");
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void bucketedLimit_perClientAddress_admitsTheLimit_thenAnswers429(String type) throws Exception {
    start(type);
    assertThat(header(send("GET", "/burst"), "RateLimit")).hasValue("\"burst\";r=1");
    // the bucketed limiter: at most one sub-window (1 s) more than the 16 s of the exact log
    assertThat(header(send("GET", "/burst"), "RateLimit").orElseThrow())
        .matches("\"burst\";r=0;t=1[67]");
    TIME.advance(Duration.ofSeconds(3));
    HttpResponse<String> denied = send("GET", "/burst");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "RateLimit-Policy")).hasValue("\"burst\";q=2;w=16");
    // the exact log would say 13 s; the bucketed limiter at most one sub-window (1 s) more
    String retry = header(denied, "Retry-After").orElseThrow();
    assertThat(Long.parseLong(retry)).isBetween(13L, 14L);
    assertThat(header(denied, "RateLimit")).hasValue("\"burst\";r=0;t=" + retry);
    TIME.advance(Duration.ofSeconds(Long.parseLong(retry)));
    assertThat(send("GET", "/burst").statusCode()).isEqualTo(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void sumCap_readsTheAmountAnEarlierFilterSetAsAnAttribute(String type) throws Exception {
    start(type);
    HttpResponse<String> first = send("GET", "/credits", "X-Cost-In", "3");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit")).hasValue("\"credits\";r=2");
    HttpResponse<String> second = send("GET", "/credits", "X-Cost-In", "3");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(header(second, "RateLimit")).hasValue("\"credits\";r=2;t=60");
    assertThat(send("GET", "/credits").statusCode()).isEqualTo(400); // not priced
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void aKeyExpressionThatFailsOnTheRequest_answers503(String type) throws Exception {
    start(type);
    HttpResponse<String> r = send("GET", "/odd");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(header(r, "Retry-After")).hasValue("1");
    assertThat(header(r, "RateLimit-Policy")).hasValue("\"odd\";q=5;w=60");
    assertThat(header(r, "RateLimit")).hasValue("\"odd\";r=0;t=1");
    String metrics = scrape();
    if (metrics != null) {
      assertThat(metrics).contains("ringtail_limits_unavailable_total{limit=\"odd\"} 1.0");
    }
    assertThat(r.body()).contains("limit \"odd\" cannot be decided now");
    assertThat(send("GET", "/api/quote").statusCode()).isEqualTo(200); // other limits unaffected
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void principalKey_limitsEachAuthenticatedUser_andRequestsWithoutOneShareAKey(String type)
      throws Exception {
    start(type);
    String alice = "alice-" + type;
    for (int remaining = 1; remaining >= 0; remaining--) {
      assertThat(header(send("GET", "/me", "X-User", alice), "RateLimit"))
          .hasValue("\"user\";r=" + remaining + (remaining == 0 ? ";t=60" : ""));
    }
    HttpResponse<String> denied = send("GET", "/me", "X-User", alice);
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).hasValue("60");
    // another user has a limit of their own; the anonymous requests one between them
    assertThat(header(send("GET", "/me", "X-User", "bob-" + type), "RateLimit"))
        .hasValue("\"user\";r=1");
    assertThat(send("GET", "/me").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/me").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/me").statusCode()).isEqualTo(429);
    assertThat(counts("user").allowed()).isEqualTo(5);
    assertThat(counts("user").denied()).isEqualTo(2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void pathAndPaths_nameTheRequestsOfOneLimit(String type) throws Exception {
    start(type);
    assertThat(header(send("GET", "/pair/a"), "RateLimit")).hasValue("\"pair\";r=1");
    assertThat(header(send("GET", "/pair/c"), "RateLimit")).hasValue("\"pair\";r=0;t=60");
    assertThat(send("GET", "/pair/b").statusCode()).isEqualTo(429);
    assertThat(send("GET", "/pair/a").statusCode()).isEqualTo(429);
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void requestsWithoutTheKeyHeader_shareOneKey(String type) throws Exception {
    start(type);
    for (int remaining = 2; remaining >= 0; remaining--) {
      assertThat(header(send("GET", "/api/quote"), "RateLimit"))
          .hasValue("\"api\";r=" + remaining + (remaining == 0 ? ";t=60" : ""));
    }
    assertThat(send("GET", "/api/quote").statusCode()).isEqualTo(429);
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void sumCap_addsTheRequestsAmounts_perExpressionKey(String type) throws Exception {
    start(type);
    String tenant = "acme-" + type;
    HttpResponse<String> first = send("POST", "/pay", "X-Tenant", tenant, "X-Amount", "4.50");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit-Policy")).hasValue("\"spend\";q=10;w=3600");
    assertThat(header(first, "RateLimit")).hasValue("\"spend\";r=5"); // 5.50 left, rounded down
    assertThat(send("POST", "/pay", "X-Tenant", tenant, "X-Amount", "5.50").statusCode())
        .isEqualTo(200);
    TIME.advance(Duration.ofMinutes(15));
    HttpResponse<String> over = send("POST", "/pay", "X-Tenant", tenant, "X-Amount", "0.01");
    assertThat(over.statusCode()).isEqualTo(429);
    assertThat(header(over, "Retry-After")).hasValue("2700"); // the first amount leaves in 45 min
    assertThat(header(over, "RateLimit")).hasValue("\"spend\";r=0;t=2700");
    // a GET is not limited by a POST-only limit; a bad amount is the client's error
    assertThat(send("GET", "/api/quote", "X-Tenant", tenant).statusCode()).isEqualTo(200);
    HttpResponse<String> bad = send("POST", "/pay", "X-Tenant", "other", "X-Amount", "ten");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("amount (header:X-Amount) for \"spend\" is not a number: ten");
    assertThat(send("POST", "/pay", "X-Tenant", "other").statusCode()).isEqualTo(400);
    HttpResponse<String> huge = send("POST", "/pay", "X-Tenant", "other", "X-Amount", "11");
    assertThat(huge.statusCode()).isEqualTo(429);
    assertThat(header(huge, "Retry-After")).isEmpty(); // no wait ever makes it fit
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--ringtail.limits.api.key=cookie:session|ringtail.limits.api.key must be ip, principal,"
            + " header:NAME or expression:SPEL, but was \"cookie:session\"",
        "--ringtail.limits.api.limit=2.5|ringtail.limits.api.limit must be a whole number of"
            + " requests, but was 2.5",
        "--ringtail.limits.api.amount=header:X-Cost|ringtail.limits.api.amount must be unset for kind"
            + " sliding-log (it is for kind sum-cap), but was \"header:X-Cost\"",
        "--ringtail.limits.Bad.path=/x|ringtail.limits.Bad must be a name of lowercase letters",
        "--ringtail.limits.spend.amount=body|ringtail.limits.spend.amount must be header:NAME or"
            + " attribute:NAME",
        "--ringtail.limits.api.maximum-keys=0|ringtail.limits.api.maximum-keys must be positive,"
            + " but was 0",
        "--ringtail.limits.api.kind=fixed-window|kind must be sliding-log, bucketed or sum-cap, but"
            + " was \"fixed-window\"",
        "--ringtail.limits.api.kind=fixed-window|ringtail.limits.api.kind"
      })
  void aLimitItCannotApply_failsTheStart_namingTheProperty(String argAndMessage) {
    String[] parts = argAndMessage.split("\\|");
    assertThatThrownBy(() -> start("servlet", parts[0])).hasStackTraceContaining(parts[1]);
  }
}
