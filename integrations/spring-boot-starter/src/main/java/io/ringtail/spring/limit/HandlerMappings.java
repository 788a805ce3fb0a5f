package io.ringtail.spring.limit;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The handler methods of the application's {@code RequestMappingHandlerMapping} beans, as {@link
 * AnnotatedLimits} reads them: Spring MVC's ({@link Mvc}) or WebFlux's ({@link WebFlux}), each
 * loaded only where its framework is. The patterns are Spring's own, as combined from the class's
 * and the method's mappings. {@link MvcRoutes} and {@link WebFluxRoutes} find the route of a
 * request the limit filter answers itself.
 */
final class HandlerMappings {
  private HandlerMappings() {}

  /** The HTTP methods of a mapping (every one if empty); HEAD where GET is, as Spring maps it. */
  static Set<String> methods(Set<RequestMethod> mapped) {
    Set<String> methods = new LinkedHashSet<>();
    mapped.forEach(m -> methods.add(m.name()));
    if (methods.contains("GET")) {
      methods.add("HEAD");
    }
    return Set.copyOf(methods);
  }

  /**
   * Spring MVC: the patterns are within the DispatcherServlet, so each gets the servlet's path
   * ({@code spring.mvc.servlet.path}) in front, as the limit filter sees the path.
   */
  static final class Mvc implements AnnotatedLimits.Source {
    /** Boot's {@code DispatcherServletPath}: its package moved in Boot 4. */
    private static final String[] DISPATCHER_SERVLET_PATH = {
      "org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath",
      "org.springframework.boot.autoconfigure.web.servlet.DispatcherServletPath"
    };

    private final ListableBeanFactory beans;

    Mvc(ListableBeanFactory beans) {
      this.beans = Objects.requireNonNull(beans, "beans");
    }

    @Override
    public List<AnnotatedLimits.Handler> handlers() {
      String prefix = servletPrefix();
      List<AnnotatedLimits.Handler> handlers = new ArrayList<>();
      for (org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping
          mapping :
              beans
                  .getBeanProvider(
                      org.springframework.web.servlet.mvc.method.annotation
                          .RequestMappingHandlerMapping.class)
                  .orderedStream()
                  .toList()) {
        PathPatternParser parser =
            mapping.getPatternParser() != null
                ? mapping.getPatternParser()
                : PathPatternParser.defaultInstance;
        for (var e : mapping.getHandlerMethods().entrySet()) {
          handlers.add(
              new AnnotatedLimits.Handler(
                  e.getValue().getMethod(),
                  e.getValue().getBeanType(),
                  e.getKey().getPatternValues().stream().map(p -> prefix + p).toList(),
                  methods(e.getKey().getMethodsCondition().getMethods()),
                  parser,
                  mapping));
        }
      }
      return handlers;
    }

    /** The DispatcherServlet's path prefix: "" when it is mapped to "/", else like "/api". */
    private String servletPrefix() {
      ClassLoader loader = getClass().getClassLoader();
      for (String name : DISPATCHER_SERVLET_PATH) {
        if (!ClassUtils.isPresent(name, loader)) {
          continue;
        }
        Class<?> type = ClassUtils.resolveClassName(name, loader);
        Object path = beans.getBeanProvider(type).getIfUnique();
        Method prefix = ReflectionUtils.findMethod(type, "getPrefix");
        if (path != null && prefix != null) {
          return (String) ReflectionUtils.invokeMethod(prefix, path);
        }
      }
      return "";
    }
  }

  /**
   * Spring WebFlux: the patterns are within the application, as the limit filter sees the path
   * ({@code spring.webflux.base-path} is the context path there).
   */
  static final class WebFlux implements AnnotatedLimits.Source {
    private final ListableBeanFactory beans;

    WebFlux(ListableBeanFactory beans) {
      this.beans = Objects.requireNonNull(beans, "beans");
    }

    @Override
    public List<AnnotatedLimits.Handler> handlers() {
      List<AnnotatedLimits.Handler> handlers = new ArrayList<>();
      for (org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping
          mapping :
              beans
                  .getBeanProvider(
                      org.springframework.web.reactive.result.method.annotation
                          .RequestMappingHandlerMapping.class)
                  .orderedStream()
                  .toList()) {
        for (var e : mapping.getHandlerMethods().entrySet()) {
          handlers.add(
              new AnnotatedLimits.Handler(
                  e.getValue().getMethod(),
                  e.getValue().getBeanType(),
                  e.getKey().getPatternsCondition().getPatterns().stream()
                      .map(PathPattern::getPatternString)
                      .toList(),
                  methods(e.getKey().getMethodsCondition().getMethods()),
                  mapping.getPathPatternParser(),
                  mapping));
        }
      }
      return handlers;
    }
  }

  /**
   * Spring MVC: marks a request the limit filter answers itself (a 429, a 503) with its route, as
   * the DispatcherServlet would have: the application's handler mappings, in the
   * DispatcherServlet's order, look the handler up, which sets the best-matching-pattern attribute
   * and the {@code http.server.requests} observation's path pattern, so the answer is observed
   * under its URI template rather than {@code UNKNOWN}. A request no mapping matches stays
   * unmarked.
   */
  static final class MvcRoutes {
    private final ListableBeanFactory beans;
    private volatile List<org.springframework.web.servlet.HandlerMapping> mappings;

    MvcRoutes(ListableBeanFactory beans) {
      this.beans = Objects.requireNonNull(beans, "beans");
    }

    void mark(jakarta.servlet.http.HttpServletRequest request) {
      try {
        for (org.springframework.web.servlet.HandlerMapping m : mappings()) {
          if (m.getHandler(request) != null) {
            break;
          }
        }
      } catch (Exception e) {
        return; // no route: observed as the request would be without the filter's answer
      }
      Object pattern =
          request.getAttribute(
              org.springframework.web.servlet.HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
      if (pattern != null) {
        ServerHttpObservationFilter.findObservationContext(request)
            .ifPresent(c -> c.setPathPattern(pattern.toString()));
      }
    }

    private List<org.springframework.web.servlet.HandlerMapping> mappings() {
      List<org.springframework.web.servlet.HandlerMapping> m = mappings;
      if (m == null) {
        m =
            beans
                .getBeanProvider(org.springframework.web.servlet.HandlerMapping.class)
                .orderedStream()
                .toList();
        mappings = m;
      }
      return m;
    }
  }

  /** Spring WebFlux: {@link MvcRoutes} for an exchange, with the DispatcherHandler's mappings. */
  static final class WebFluxRoutes {
    private final ListableBeanFactory beans;
    private volatile List<org.springframework.web.reactive.HandlerMapping> mappings;

    WebFluxRoutes(ListableBeanFactory beans) {
      this.beans = Objects.requireNonNull(beans, "beans");
    }

    Mono<Void> mark(ServerWebExchange exchange) {
      return Flux.fromIterable(mappings())
          .concatMap(m -> m.getHandler(exchange))
          .next()
          .onErrorResume(e -> Mono.empty())
          .then(
              Mono.fromRunnable(
                  () -> {
                    Object pattern =
                        exchange.getAttribute(
                            org.springframework.web.reactive.HandlerMapping
                                .BEST_MATCHING_PATTERN_ATTRIBUTE);
                    if (pattern != null) {
                      ServerRequestObservationContext.findCurrent(exchange.getAttributes())
                          .ifPresent(c -> c.setPathPattern(pattern.toString()));
                    }
                  }));
    }

    private List<org.springframework.web.reactive.HandlerMapping> mappings() {
      List<org.springframework.web.reactive.HandlerMapping> m = mappings;
      if (m == null) {
        m =
            beans
                .getBeanProvider(org.springframework.web.reactive.HandlerMapping.class)
                .orderedStream()
                .toList();
        mappings = m;
      }
      return m;
    }
  }
}
