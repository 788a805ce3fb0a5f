package io.ringtail.spring.limit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An HTTP limit on a Spring MVC or WebFlux handler method: the starter's limit filter applies it,
 * as it applies a {@code ringtail.limits.<name>} entry, to the requests of the method's request
 * mapping (its path patterns and HTTP methods). On a controller class, it is one limit over all the
 * class's handler methods.
 *
 * <pre>{@code
 * @GetMapping("/orders/{id}")
 * @RingtailLimit(name = "orders", limit = "100", window = "1m", key = "header:X-Api-Key")
 * Order order(@PathVariable String id) { ... }
 * }</pre>
 *
 * <p>Each attribute means what the property of the same name means, with the same default; every
 * attribute takes {@code ${...}} placeholders, resolved against the Environment at startup. A bad
 * value fails the start, naming the method and the attribute. Handler methods may share a name only
 * with equal attributes: they then share one limit, one count per key across them. A name may not
 * also be configured under {@code ringtail.limits}. See {@code docs/limits.md}.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RingtailLimit.List.class)
public @interface RingtailLimit {

  /** The limit's name, as in the header fields and meters: lowercase letters, digits, _ . -. */
  String name();

  /** Requests per window per key; for a sum cap, the most the amounts may total. */
  String limit();

  /** The rolling window, like {@code 1m}, {@code 30s} or {@code PT1M}. */
  String window() default "1m";

  /** What requests are counted under: ip, header:NAME, principal or expression:SPEL. */
  String key() default "ip";

  /** How the limit decides: sliding-log (exact), bucketed, or sum-cap. */
  String kind() default "sliding-log";

  /** Where a sum cap reads each request's amount: header:NAME or attribute:NAME; unset if "". */
  String amount() default "";

  /** Digits after the point a sum cap's amounts may have. */
  String scale() default "2";

  /** Most keys held in-process at a time (the least used are forgotten). */
  String maximumKeys() default "1000000";

  /** Several limits on one handler method or class. */
  @Target({ElementType.METHOD, ElementType.TYPE})
  @Retention(RetentionPolicy.RUNTIME)
  @Documented
  @interface List {
    /** The limits. */
    RingtailLimit[] value();
  }
}
