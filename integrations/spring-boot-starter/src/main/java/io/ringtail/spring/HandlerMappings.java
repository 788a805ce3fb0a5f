package io.ringtail.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The handler methods of the application's {@code RequestMappingHandlerMapping} beans, as {@link
 * AnnotatedLimits} reads them: Spring MVC's ({@link Mvc}) or WebFlux's ({@link WebFlux}), each
 * loaded only where its framework is. The patterns are Spring's own, as combined from the class's
 * and the method's mappings.
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
}
