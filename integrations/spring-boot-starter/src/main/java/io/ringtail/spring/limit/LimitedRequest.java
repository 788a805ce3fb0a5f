package io.ringtail.spring.limit;

/**
 * The request a {@code ringtail.limits} entry decides about, the same for Spring MVC and WebFlux:
 * the root object of a limit's {@code expression:} key, as in {@code expression:header('X-Tenant')
 * + ':' + method}. Read on the request's thread; not thread-safe.
 */
public interface LimitedRequest {

  /** The HTTP method, upper case. */
  String getMethod();

  /** The path within the application (without the context path or the query). */
  String getPath();

  /** The first value of the header {@code name}, or null. */
  String header(String name);

  /** The request attribute {@code name} (Spring MVC) or exchange attribute (WebFlux), or null. */
  Object attribute(String name);

  /** The client's address as the server sees it (after Boot's forwarded-header handling). */
  String getRemoteAddress();

  /** The authenticated principal's name, or null. */
  String getPrincipal();
}
