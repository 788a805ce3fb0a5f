package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.DecisionCounts;
import io.ringtail.spring.AppRequests;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.util.Throwables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@link RingtailLimit} on handler methods, over HTTP on a random port, on Spring MVC and WebFlux,
 * in applications without any {@code ringtail.limits} property: the limit follows the handler's own
 * mapping, counts as a configured limit does (the decisions on an injected clock), shares one count
 * under a shared name, takes placeholders, shows in the meters, and fails the start naming the
 * method and attribute at fault.
 */
class AnnotatedHttpLimitsTest {
  static final ManualTimeSource TIME = new ManualTimeSource(1_000_000_000_000L);

  private ConfigurableApplicationContext context;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    LimitDecisions manualTimeDecisions() {
      return LimitDecisions.inProcess(TIME);
    }
  }

  @RestController
  static class Orders {
    final AtomicInteger served = new AtomicInteger();

    @GetMapping("/orders/{id}")
    @RingtailLimit(name = "orders", limit = "3", key = "header:X-Api-Key")
    String order(@PathVariable String id) {
      served.incrementAndGet();
      return "order " + id;
    }

    /** The same name and attributes as {@link #order}: one limit, one count. */
    @PostMapping("/orders")
    @RingtailLimit(name = "orders", limit = "3", window = "60s", key = "header:X-Api-Key")
    String place() {
      served.incrementAndGet();
      return "placed";
    }

    /** More specific than /orders/{id}: Spring routes here, and no limit counts it. */
    @GetMapping("/orders/export")
    String export() {
      return "export";
    }

    /** Two limits: decided in the order of their names. */
    @GetMapping("/orders/{id}/invoice")
    @RingtailLimit(name = "invoice-burst", limit = "1", window = "1s")
    @RingtailLimit(name = "invoice-daily", limit = "5", window = "1d")
    String invoice(@PathVariable String id) {
      return "invoice " + id;
    }

    @GetMapping("/open")
    String open() {
      return "open";
    }
  }

  /** One limit over every handler of the class. */
  @RestController
  @RingtailLimit(name = "reports", limit = "2", window = "10s")
  static class Reports {
    @GetMapping("/reports/daily")
    String daily() {
      return "daily";
    }

    @GetMapping("/reports/weekly")
    String weekly() {
      return "weekly";
    }
  }

  /** Every attribute a placeholder, with a default: ops tune it by property. */
  @RestController
  static class Tuned {
    @GetMapping("/tuned")
    @RingtailLimit(
        name = "${t.name:tuned}",
        limit = "${t.limit:3}",
        window = "${t.window:1m}",
        key = "${t.key:ip}",
        kind = "${t.kind:sliding-log}",
        amount = "${t.amount:}",
        maximumKeys = "${t.maximum-keys:1000}")
    String tuned() {
      return "tuned";
    }
  }

  /** "orders" again, with another limit. */
  @RestController
  static class Conflicting {
    @GetMapping("/conflicting")
    @RingtailLimit(name = "orders", limit = "5", key = "header:X-Api-Key")
    String conflicting() {
      return "conflicting";
    }
  }

  /** A controller an application defines by a {@code @Bean} method rather than by scanning. */
  @RestController
  static class Quotes {
    @GetMapping("/quote")
    @RingtailLimit(name = "quotes", limit = "1")
    String quote() {
      return "quote";
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class QuotesByBean {
    @Bean
    Quotes quotes() {
      return new Quotes();
    }
  }

  /** The example of docs/limits.md, verbatim. */
  @RestController
  static class DocsOrders {
    // docs:ringtail-limit-annotation:start
    @GetMapping("/orders/{id}")
    @RingtailLimit(name = "orders", limit = "100", window = "1m", key = "header:X-Api-Key")
    String order(@PathVariable String id) {
      return "order " + id;
    }
    // docs:ringtail-limit-annotation:end
  }

  @RestController
  static class Plain {
    @GetMapping("/plain")
    String plain() {
      return "plain";
    }
  }

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
  }

  private void start(String type, List<Class<?>> sources, String... extra) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--spring.main.banner-mode=off");
    args.add("--spring.main.web-application-type=" + type);
    args.addAll(List.of(extra));
    List<Class<?>> all = new ArrayList<>(List.of(App.class));
    all.addAll(sources);
    context = SpringApplication.run(all.toArray(Class<?>[]::new), args.toArray(String[]::new));
  }

  private void start(String type, String... extra) {
    start(type, List.of(Orders.class, Reports.class, Tuned.class), extra);
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

  private double meter(String limit, String outcome) {
    return context
        .getBean(MeterRegistry.class)
        .get("ringtail.decisions")
        .tag("decision", limit)
        .tag("outcome", outcome)
        .functionCounter()
        .count();
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void theDocsExample_admits100AMinutePerApiKey(String type) throws Exception {
    start(type, List.of(DocsOrders.class));
    for (int i = 0; i < 100; i++) {
      HttpResponse<String> ok = send("GET", "/orders/" + i, "X-Api-Key", "alice");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(header(ok, "RateLimit"))
          .hasValue("\"orders\";r=" + (99 - i) + (i == 99 ? ";t=60" : ""));
    }
    HttpResponse<String> denied = send("GET", "/orders/100", "X-Api-Key", "alice");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "RateLimit-Policy")).hasValue("\"orders\";q=100;w=60");
    assertThat(header(denied, "Retry-After")).hasValue("60");
    assertThat(send("GET", "/orders/1", "X-Api-Key", "bob").statusCode()).isEqualTo(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void anAnnotatedHandler_admitsItsLimit_thenAnswers429_withTheDecisionsHeaderFields(String type)
      throws Exception {
    start(type);
    // no ringtail.limits property: the annotations alone bring the filter
    Class<?> filter =
        type.equals("servlet") ? RingtailLimitFilter.class : RingtailLimitWebFilter.class;
    assertThat(context.getBeansOfType(filter)).hasSize(1);
    String[] alice = {"X-Api-Key", "alice"};
    for (int remaining = 2; remaining >= 0; remaining--) {
      HttpResponse<String> ok = send("GET", "/orders/" + remaining, alice);
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("order " + remaining);
      assertThat(header(ok, "RateLimit-Policy")).hasValue("\"orders\";q=3;w=60");
      assertThat(header(ok, "RateLimit"))
          .hasValue("\"orders\";r=" + remaining + (remaining == 0 ? ";t=60" : ""));
      assertThat(header(ok, "Retry-After")).isEmpty();
    }
    TIME.advance(Duration.ofSeconds(20));
    HttpResponse<String> denied = send("GET", "/orders/7", alice);
    // the three admitted at t0 leave the window at t0 + 60 s: 40 s from now, exactly
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).hasValue("40");
    assertThat(header(denied, "RateLimit")).hasValue("\"orders\";r=0;t=40");
    assertThat(header(denied, "RateLimit-Policy")).hasValue("\"orders\";q=3;w=60");
    assertThat(denied.body())
        .contains("rate limit \"orders\" of 3 requests reached; retry in 40 s");
    assertThat(context.getBean(Orders.class).served).hasValue(3);

    // handlers the annotation is not on: a more specific mapping beside it, and another path
    for (String path : List.of("/orders/export", "/open")) {
      HttpResponse<String> free = send("GET", path, alice);
      assertThat(free.statusCode()).as(path).isEqualTo(200);
      assertThat(header(free, "RateLimit-Policy")).as(path).isEmpty();
    }
    // HEAD runs the GET handler, so the limit counts it
    assertThat(header(send("HEAD", "/orders/1", "X-Api-Key", "bob"), "RateLimit"))
        .hasValue("\"orders\";r=2");
    assertThat(header(send("GET", "/orders/1", "X-Api-Key", "bob"), "RateLimit"))
        .hasValue("\"orders\";r=1");

    assertThat(counts("orders").allowed()).isEqualTo(5);
    assertThat(counts("orders").denied()).isEqualTo(1);
    // bound by the starter's meter binder, with the configured limits' tags
    assertThat(meter("orders", "allowed")).isEqualTo(5.0);
    assertThat(meter("orders", "denied")).isEqualTo(1.0);
    assertThat(meter("reports", "allowed")).isZero();
    assertThat(meter("tuned", "allowed")).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void aNameOnTwoHandlerMethods_isOneLimit_withOneCount(String type) throws Exception {
    start(type);
    String[] carol = {"X-Api-Key", "carol"};
    assertThat(header(send("GET", "/orders/1", carol), "RateLimit")).hasValue("\"orders\";r=2");
    HttpResponse<String> placed = send("POST", "/orders", carol);
    assertThat(placed.statusCode()).isEqualTo(200);
    assertThat(header(placed, "RateLimit-Policy")).hasValue("\"orders\";q=3;w=60");
    assertThat(header(placed, "RateLimit")).hasValue("\"orders\";r=1");
    assertThat(header(send("GET", "/orders/2", carol), "RateLimit"))
        .hasValue("\"orders\";r=0;t=60");
    HttpResponse<String> denied = send("POST", "/orders", carol);
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).hasValue("60");
    assertThat(context.getBean(HttpLimits.class).decisions())
        .containsOnlyKeys("invoice-burst", "invoice-daily", "orders", "reports", "tuned");
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void repeated_eachLimitDecides_inTheOrderOfTheirNames(String type) throws Exception {
    start(type);
    HttpResponse<String> first = send("GET", "/orders/1/invoice");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit-Policy"))
        .hasValue("\"invoice-burst\";q=1;w=1, \"invoice-daily\";q=5;w=86400");
    assertThat(header(first, "RateLimit"))
        .hasValue("\"invoice-burst\";r=0;t=1, \"invoice-daily\";r=4");
    // the first denies: the second does not count the request
    HttpResponse<String> denied = send("GET", "/orders/2/invoice");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "RateLimit-Policy")).hasValue("\"invoice-burst\";q=1;w=1");
    assertThat(header(denied, "RateLimit")).hasValue("\"invoice-burst\";r=0;t=1");
    TIME.advance(Duration.ofSeconds(1));
    assertThat(header(send("GET", "/orders/3/invoice"), "RateLimit"))
        .hasValue("\"invoice-burst\";r=0;t=1, \"invoice-daily\";r=3");
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void onAClass_oneLimitCountsEveryHandlerOfIt(String type) throws Exception {
    start(type);
    HttpResponse<String> daily = send("GET", "/reports/daily");
    assertThat(header(daily, "RateLimit-Policy")).hasValue("\"reports\";q=2;w=10");
    assertThat(header(daily, "RateLimit")).hasValue("\"reports\";r=1");
    assertThat(header(send("GET", "/reports/weekly"), "RateLimit"))
        .hasValue("\"reports\";r=0;t=10");
    HttpResponse<String> denied = send("GET", "/reports/daily");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).hasValue("10");
    assertThat(header(denied, "RateLimit")).hasValue("\"reports\";r=0;t=10");
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void placeholders_areResolvedAgainstTheEnvironment(String type) throws Exception {
    start(type, "--t.name=tuned-by-ops", "--t.limit=2", "--t.window=30s", "--t.key=header:X-T");
    for (int remaining = 1; remaining >= 0; remaining--) {
      HttpResponse<String> ok = send("GET", "/tuned", "X-T", "acme");
      assertThat(header(ok, "RateLimit-Policy")).hasValue("\"tuned-by-ops\";q=2;w=30");
      assertThat(header(ok, "RateLimit"))
          .hasValue("\"tuned-by-ops\";r=" + remaining + (remaining == 0 ? ";t=30" : ""));
    }
    HttpResponse<String> denied = send("GET", "/tuned", "X-T", "acme");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).hasValue("30");
    // keyed by the header now: another tenant has its own count
    assertThat(send("GET", "/tuned", "X-T", "other").statusCode()).isEqualTo(200);
  }

  @Test
  void behindAServletPath_theMappingsPatternsGetIt() throws Exception {
    start("servlet", "--spring.mvc.servlet.path=/svc");
    HttpResponse<String> limited = send("GET", "/svc/orders/1", "X-Api-Key", "dave");
    assertThat(limited.statusCode()).isEqualTo(200);
    assertThat(header(limited, "RateLimit")).hasValue("\"orders\";r=2");
    HttpResponse<String> export = send("GET", "/svc/orders/export", "X-Api-Key", "dave");
    assertThat(export.statusCode()).isEqualTo(200);
    assertThat(header(export, "RateLimit")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void aControllerDefinedByABeanMethod_bringsTheFilterToo(String type) throws Exception {
    start(type, List.of(QuotesByBean.class));
    assertThat(send("GET", "/quote").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = send("GET", "/quote");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "RateLimit-Policy")).hasValue("\"quotes\";q=1;w=60");
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void withoutAnyLimitOrAnnotation_nothingIsConfigured(String type) throws Exception {
    start(type, List.of(Plain.class));
    assertThat(context.getBeansOfType(HttpLimits.class)).isEmpty();
    assertThat(context.getBeansOfType(RingtailLimitFilter.class)).isEmpty();
    assertThat(context.getBeansOfType(RingtailLimitWebFilter.class)).isEmpty();
    assertThat(send("GET", "/plain").statusCode()).isEqualTo(200);
  }

  private static final String TUNED =
      "on io.ringtail.spring.limit.AnnotatedHttpLimitsTest$Tuned.tuned()";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "servlet|--t.limit=2.5|@RingtailLimit.limit "
            + TUNED
            + " must be a whole number of requests, but was 2.5",
        "reactive|--t.limit=-1|@RingtailLimit.limit " + TUNED + " must be a positive number",
        "servlet|--t.limit=many|@RingtailLimit.limit "
            + TUNED
            + " must be a number, but was \"many\"",
        "servlet|--t.window=soon|@RingtailLimit.window "
            + TUNED
            + " must be a duration like 1m or PT1M, but was \"soon\"",
        "servlet|--t.key=cookie:session|@RingtailLimit.key "
            + TUNED
            + " must be ip, principal, header:NAME or expression:SPEL, but was \"cookie:session\"",
        "servlet|--t.kind=leaky|@RingtailLimit.kind "
            + TUNED
            + " must be sliding-log, bucketed or sum-cap, but was \"leaky\"",
        "servlet|--t.amount=header:X-Cost|@RingtailLimit.amount "
            + TUNED
            + " must be unset for kind sliding-log (it is for kind sum-cap)",
        "reactive|--t.name=Bad|@RingtailLimit.name "
            + TUNED
            + " must be a name of lowercase letters, digits",
        "servlet|--t.maximum-keys=0|@RingtailLimit.maximumKeys " + TUNED + " must be positive",
        "servlet|--t.limit=${nowhere}|@RingtailLimit.limit "
            + TUNED
            + ": Could not resolve placeholder 'nowhere'"
      })
  void aBadAttribute_failsTheStart_namingTheMethodAndAttribute(String row) {
    String[] parts = row.split("\\|");
    assertThatThrownBy(() -> start(parts[0], parts[1])).hasStackTraceContaining(parts[2]);
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void aNameAlsoConfigured_failsTheStart(String type) {
    assertThatThrownBy(
            () ->
                start(
                    type,
                    "--ringtail.limits.api.path=/api/**",
                    "--ringtail.limits.api.limit=10",
                    "--t.name=api"))
        .hasStackTraceContaining(
            "@RingtailLimit.name "
                + TUNED
                + " must be a name not configured under ringtail.limits, but was \"api\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"servlet", "reactive"})
  void aNameOnTwoMethods_withOtherAttributes_failsTheStart(String type) {
    assertThatThrownBy(() -> start(type, List.of(Orders.class, Conflicting.class)))
        .hasStackTraceContaining("@RingtailLimit \"orders\" on io.ringtail.spring.limit")
        .hasStackTraceContaining("AnnotatedHttpLimitsTest$Conflicting.conflicting()")
        .hasStackTraceContaining("AnnotatedHttpLimitsTest$Orders.")
        .hasStackTraceContaining(": handler methods share a limit name only with equal attributes")
        .satisfies(
            e ->
                assertThat(Throwables.getStackTrace(e))
                    .containsAnyOf("in limit (5, not 3)", "in limit (3, not 5)"));
  }
}
