package io.ringtail.examples.project;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No package of the project depends on a package that depends back on it, directly or through
 * others: read from the main sources of every module, and the test sources of the benchmarks
 * modules (programs too). A dependency is an import (static ones included) or a fully qualified
 * {@code {@link}}, {@code {@linkplain}} or {@code @see} in javadoc, of a type in another package of
 * these sources. A module's tests may use a kit built on the module (core's tests run the test
 * kit's contracts), so other test sources are left out.
 */
class PackageCyclesTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+)");
  private static final Pattern LINK =
      Pattern.compile("(?:\\{@link(?:plain)?|@see)\\s+((?:[a-z]\\w*\\.)+[A-Z]\\w*)");

  @Test
  void theProjectsSources_haveNoPackageCycle() throws IOException {
    List<String> sources = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String path = ROOT.relativize(f).toString();
        if (path.endsWith(".java")
            && !path.contains("/target/")
            && (path.matches("(.+/)?src/main/java/.*")
                || path.matches("benchmarks/[^/]+/src/test/java/.*"))) {
          sources.add(Files.readString(f));
        }
      }
    }
    Map<String, Set<String>> graph = dependencies(sources);
    assertThat(graph)
        .as("packages read from %s", ROOT)
        .containsKeys(
            "io.ringtail",
            "io.ringtail.internal",
            "io.ringtail.alert",
            "io.ringtail.redis",
            "io.ringtail.spring",
            "io.ringtail.benchmarks.toolkit",
            "io.ringtail.benchmarks.report",
            "io.ringtail.benchmarks.nab");
    assertThat(cycles(graph)).as("package cycles").isEmpty();
  }

  @Test
  void aCycle_byImport_orByJavadocLinkAlone_isFound() {
    String low = "package a.low;\n\n/** See {@link a.high.Top}. */\nclass Low {}\n";
    String high = "package a.high;\n\nimport a.low.Low;\n\nclass Top {}\n";
    String other = "package a.other;\n\nimport static a.high.Top.run;\n\nclass Other {}\n";

    assertThat(cycles(dependencies(List.of(low, high, other))))
        .containsExactly(List.of("a.high", "a.low"));
    assertThat(cycles(dependencies(List.of(low.replace("{@link a.high.Top}", "Top"), high))))
        .isEmpty();
  }

  /** Package to the packages of these sources it depends on (itself excluded). */
  static Map<String, Set<String>> dependencies(List<String> sources) {
    Map<String, String> packageOf = new LinkedHashMap<>();
    for (String source : sources) {
      Matcher m = PACKAGE.matcher(source);
      packageOf.put(source, m.find() ? m.group(1) : "");
    }
    Set<String> known = new TreeSet<>(packageOf.values());
    Map<String, Set<String>> graph = new TreeMap<>();
    for (Map.Entry<String, String> e : packageOf.entrySet()) {
      Set<String> deps = graph.computeIfAbsent(e.getValue(), p -> new TreeSet<>());
      for (Pattern p : List.of(IMPORT, LINK)) {
        Matcher m = p.matcher(e.getKey());
        while (m.find()) {
          String target = packageIn(m.group(1), known);
          if (target != null && !target.equals(e.getValue())) {
            deps.add(target);
          }
        }
      }
    }
    return graph;
  }

  /** The longest known package that {@code name} (a type, member or package) lies in. */
  private static String packageIn(String name, Set<String> known) {
    for (String n = name; n.contains("."); n = n.substring(0, n.lastIndexOf('.'))) {
      if (known.contains(n) && !n.equals(name)) {
        return n;
      }
    }
    return null;
  }

  /** Each cycle once, as its packages in order from the smallest name. */
  static List<List<String>> cycles(Map<String, Set<String>> graph) {
    Set<List<String>> found = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
    for (String start : graph.keySet()) {
      walk(graph, start, new ArrayList<>(List.of(start)), found);
    }
    return new ArrayList<>(found);
  }

  private static void walk(
      Map<String, Set<String>> graph, String start, List<String> path, Set<List<String>> found) {
    for (String next : graph.getOrDefault(path.get(path.size() - 1), Set.of())) {
      if (next.equals(start)) {
        found.add(List.copyOf(path));
      } else if (next.compareTo(start) > 0 && !path.contains(next)) {
        path.add(next);
        walk(graph, start, path, found);
        path.remove(path.size() - 1);
      }
    }
  }
}
