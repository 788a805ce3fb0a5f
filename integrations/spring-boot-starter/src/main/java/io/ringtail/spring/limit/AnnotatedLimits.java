package io.ringtail.spring.limit;

import io.ringtail.internal.Checks;
import java.io.IOException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.env.PropertyResolver;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.stereotype.Controller;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The limits of handler methods annotated {@link RingtailLimit}, as {@link HttpLimits} takes them:
 * each annotation read like a {@code ringtail.limits} entry (placeholders resolved, values
 * converted as Boot binds properties), its routes the request mappings of the handler methods it is
 * on, a name shared by several methods one limit. Stateless.
 */
final class AnnotatedLimits {
  private static final String ANNOTATION = RingtailLimit.class.getName();
  private static final String ANNOTATIONS = RingtailLimit.List.class.getName();

  private AnnotatedLimits() {}

  /**
   * A handler method of a request mapping: its path patterns (in the path the limit filter sees, to
   * parse with {@code parser}) and HTTP methods (every one if empty).
   */
  record Handler(
      Method method,
      Class<?> beanType,
      List<String> patterns,
      Set<String> methods,
      PathPatternParser parser,
      Object mapping) {}

  /** The handler methods of the application's request mappings (Spring MVC's or WebFlux's). */
  interface Source {
    List<Handler> handlers();
  }

  /** An annotation as read, where it was found. */
  private record Read(String name, RingtailLimitProperties.Limit settings, String where) {
    UnaryOperator<String> at() {
      return AnnotatedLimits.at(where);
    }
  }

  /** Names an attribute ("" the annotation) of a {@link RingtailLimit} on {@code where}. */
  private static UnaryOperator<String> at(String where) {
    return a -> (a.isEmpty() ? "@RingtailLimit" : "@RingtailLimit." + a) + " on " + where;
  }

  /** The limits of {@code handlers}, by name; none may be named as one of {@code configured}. */
  static List<HttpLimits.Definition> of(
      Collection<Handler> handlers, PropertyResolver environment, Set<String> configured) {
    Map<String, Read> first = new TreeMap<>();
    Map<String, List<Handler>> byName = new LinkedHashMap<>();
    for (Handler h : handlers) {
      List<Read> found = new ArrayList<>();
      for (RingtailLimit a :
          AnnotatedElementUtils.findMergedRepeatableAnnotations(
              h.beanType(), RingtailLimit.class)) {
        found.add(read(a, h.beanType().getName(), environment));
      }
      for (RingtailLimit a :
          AnnotatedElementUtils.findMergedRepeatableAnnotations(h.method(), RingtailLimit.class)) {
        found.add(read(a, describe(h.method()), environment));
      }
      for (Read r : found) {
        if (configured.contains(r.name())) {
          throw Checks.invalid(
              r.at().apply("name"), "a name not configured under ringtail.limits", r.name());
        }
        Read earlier = first.putIfAbsent(r.name(), r);
        if (earlier != null && !attributes(earlier).equals(attributes(r))) {
          throw Checks.invalidConfiguration(
              "@RingtailLimit \""
                  + r.name()
                  + "\" on "
                  + r.where()
                  + " differs from the one on "
                  + earlier.where()
                  + " in "
                  + differences(earlier, r)
                  + ": handler methods share a limit name only with equal attributes");
        }
        List<Handler> under = byName.computeIfAbsent(r.name(), n -> new ArrayList<>());
        if (!under.contains(h)) {
          under.add(h);
        }
      }
    }
    if (first.isEmpty()) {
      return List.of();
    }
    Map<Handler, List<PathPattern>> patterns = new LinkedHashMap<>();
    for (Handler h : handlers) { // another handler's legacy pattern shadows nothing
      patterns.put(
          h, h.patterns().stream().map(p -> parse(h, p, null)).filter(Objects::nonNull).toList());
    }
    List<HttpLimits.Definition> definitions = new ArrayList<>();
    first.forEach(
        (name, r) -> {
          List<Handler> limited = byName.get(name);
          List<HttpLimits.Route> routes = new ArrayList<>();
          for (Handler h : limited) {
            for (String p : h.patterns()) {
              PathPattern pattern = parse(h, p, r);
              routes.add(
                  new HttpLimits.Route(
                      pattern, h.methods(), shadows(h, pattern, limited, patterns)));
            }
          }
          definitions.add(new HttpLimits.Definition(name, r.settings(), r.at(), routes));
        });
    return definitions;
  }

  /**
   * The more specific mappings of other handlers of {@code h}'s request mapping than {@code ours}:
   * a request one of them matches too goes to that handler (Spring ranks mappings so), not to
   * {@code h}.
   */
  private static List<HttpLimits.Route> shadows(
      Handler h, PathPattern ours, List<Handler> limited, Map<Handler, List<PathPattern>> all) {
    List<HttpLimits.Route> shadows = new ArrayList<>();
    all.forEach(
        (other, theirs) -> {
          if (other.mapping() != h.mapping() || limited.contains(other)) {
            return;
          }
          boolean overlap =
              other.methods().isEmpty()
                  || h.methods().isEmpty()
                  || other.methods().stream().anyMatch(h.methods()::contains);
          for (PathPattern pattern : theirs) {
            int c = PathPattern.SPECIFICITY_COMPARATOR.compare(pattern, ours);
            if (overlap
                && (c < 0 || (c == 0 && h.methods().isEmpty() && !other.methods().isEmpty()))) {
              shadows.add(new HttpLimits.Route(pattern, other.methods(), List.of()));
            }
          }
        });
    return List.copyOf(shadows);
  }

  /** {@code pattern} parsed; if it cannot be, an error for the limit {@code r}, else null. */
  private static PathPattern parse(Handler h, String pattern, Read r) {
    try {
      return h.parser().parse(pattern);
    } catch (RuntimeException e) {
      if (r == null) {
        return null;
      }
      throw Checks.invalid(
          "the request mapping of " + describe(h.method()) + " (" + r.at().apply("") + ")",
          "path patterns in PathPattern syntax (" + e.getMessage() + ")",
          pattern);
    }
  }

  private static Read read(RingtailLimit a, String where, PropertyResolver environment) {
    UnaryOperator<String> at = at(where);
    RingtailLimitProperties.Limit p = new RingtailLimitProperties.Limit();
    p.setPath(List.of());
    p.setMethods(Set.of());
    p.setLimit(convert(environment, a.limit(), BigDecimal.class, at, "limit", "a number"));
    p.setWindow(
        convert(
            environment, a.window(), Duration.class, at, "window", "a duration like 1m or PT1M"));
    p.setKey(resolve(environment, a.key(), at, "key"));
    p.setKind(
        convert(
            environment,
            a.kind(),
            RingtailLimitProperties.Kind.class,
            at,
            "kind",
            LimitSettings.KINDS));
    String amount = resolve(environment, a.amount(), at, "amount");
    p.setAmount(amount.isEmpty() ? null : amount);
    p.setScale(whole(environment, a.scale(), Integer.class, at, "scale"));
    p.setMaximumKeys(whole(environment, a.maximumKeys(), Long.class, at, "maximumKeys"));
    return new Read(resolve(environment, a.name(), at, "name"), p, where);
  }

  private static String resolve(
      PropertyResolver environment, String value, UnaryOperator<String> at, String attribute) {
    try {
      return environment.resolveRequiredPlaceholders(value);
    } catch (IllegalArgumentException e) {
      throw Checks.atProperty(at.apply(attribute), e);
    }
  }

  /** {@code value}, placeholders resolved, converted as Boot converts a property's value. */
  private static <T> T convert(
      PropertyResolver environment,
      String value,
      Class<T> type,
      UnaryOperator<String> at,
      String attribute,
      String expected) {
    String resolved = resolve(environment, value, at, attribute);
    try {
      return ApplicationConversionService.getSharedInstance().convert(resolved.trim(), type);
    } catch (ConversionException e) {
      throw Checks.invalid(at.apply(attribute), expected, resolved, e);
    }
  }

  private static <T> T whole(
      PropertyResolver environment,
      String value,
      Class<T> type,
      UnaryOperator<String> at,
      String attribute) {
    T converted = convert(environment, value, type, at, attribute, "a whole number");
    if (converted == null) {
      throw Checks.invalid(at.apply(attribute), "a whole number", value);
    }
    return converted;
  }

  /** The attributes an equal limit must have, normalized ("1m" and "60s" are equal). */
  private static Map<String, Object> attributes(Read r) {
    RingtailLimitProperties.Limit p = r.settings();
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("limit", p.getLimit() == null ? null : p.getLimit().stripTrailingZeros().toPlainString());
    a.put("window", p.getWindow());
    a.put("key", p.getKey() == null ? null : p.getKey().trim());
    a.put("kind", p.getKind());
    a.put("amount", p.getAmount() == null ? null : p.getAmount().trim());
    a.put("scale", p.getScale());
    a.put("maximumKeys", p.getMaximumKeys());
    return a;
  }

  private static String differences(Read earlier, Read later) {
    Map<String, Object> was = attributes(earlier);
    Map<String, Object> is = attributes(later);
    return was.keySet().stream()
        .filter(k -> !Objects.equals(was.get(k), is.get(k)))
        .map(k -> k + " (" + show(is.get(k)) + ", not " + show(was.get(k)) + ")")
        .collect(Collectors.joining(", "));
  }

  private static String show(Object value) {
    return value instanceof RingtailLimitProperties.Kind k
        ? LimitSettings.nameOf(k)
        : String.valueOf(value);
  }

  /** {@code io.example.Orders.order(String)}. */
  static String describe(Method m) {
    return m.getDeclaringClass().getName()
        + "."
        + m.getName()
        + Arrays.stream(m.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }

  /**
   * Whether a bean definition's class declares a {@link RingtailLimit}, read from class metadata
   * (no class loaded, no bean created); a controller's superclasses and interfaces too.
   */
  static boolean declared(ConfigurableListableBeanFactory beans, MetadataReaderFactory readers) {
    for (String name : beans.getBeanDefinitionNames()) {
      BeanDefinition definition = beans.getBeanDefinition(name);
      AnnotationMetadata metadata = metadataOf(definition, readers);
      if (metadata != null && declares(metadata, readers, false)) {
        return true;
      }
    }
    return false;
  }

  private static AnnotationMetadata metadataOf(
      BeanDefinition definition, MetadataReaderFactory readers) {
    if (definition instanceof AnnotatedBeanDefinition annotated) {
      MethodMetadata factory = annotated.getFactoryMethodMetadata();
      return factory == null ? annotated.getMetadata() : read(factory.getReturnTypeName(), readers);
    }
    return read(definition.getBeanClassName(), readers);
  }

  /** Whether {@code m} declares one; a controller's (or its supertype's) supertypes too. */
  private static boolean declares(
      AnnotationMetadata m, MetadataReaderFactory readers, boolean supertype) {
    if (m.isAnnotated(ANNOTATION)
        || m.isAnnotated(ANNOTATIONS)
        || m.hasAnnotatedMethods(ANNOTATION)
        || m.hasAnnotatedMethods(ANNOTATIONS)) {
      return true;
    }
    if (!supertype && !m.isAnnotated(Controller.class.getName())) {
      return false;
    }
    List<String> supertypes = new ArrayList<>(List.of(m.getInterfaceNames()));
    if (m.getSuperClassName() != null) {
      supertypes.add(m.getSuperClassName());
    }
    return supertypes.stream()
        .map(type -> read(type, readers))
        .anyMatch(s -> s != null && declares(s, readers, true));
  }

  /** A class's metadata, or null for a JDK or Spring class (never annotated) or one not found. */
  private static AnnotationMetadata read(String className, MetadataReaderFactory readers) {
    if (className == null
        || className.startsWith("java.")
        || className.startsWith("org.springframework.")) {
      return null;
    }
    try {
      return readers.getMetadataReader(className).getAnnotationMetadata();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
