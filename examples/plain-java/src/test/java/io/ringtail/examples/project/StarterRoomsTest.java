package io.ringtail.examples.project;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The starter's packages by job (its rooms: each direct subpackage of {@code io.ringtail.spring}
 * but {@code internal}, with its own subpackages) do not depend on each other: a room may depend on
 * the root package and on {@code internal}, never on a sibling room; the root and {@code internal}
 * depend on no room. Dependencies are read from the starter's main sources as {@link
 * PackageCyclesTest} reads them (imports and fully qualified javadoc links), so a room added later
 * is checked without naming it here.
 */
class StarterRoomsTest {
  static final String ROOT_PACKAGE = "io.ringtail.spring";
  static final String INTERNAL = ROOT_PACKAGE + ".internal";
  static final Path SOURCES =
      Path.of("../..")
          .toAbsolutePath()
          .normalize()
          .resolve("integrations/spring-boot-starter/src/main/java");

  @Test
  void noRoomOfTheStarter_dependsOnASiblingRoom() throws IOException {
    Map<String, Set<String>> graph = PackageCyclesTest.dependencies(sources(SOURCES));
    assertThat(graph.keySet().stream().map(StarterRoomsTest::roomOf).filter(r -> r != null))
        .as("rooms of the starter")
        .contains(ROOT_PACKAGE + ".observation", ROOT_PACKAGE + ".slo");
    assertThat(violations(graph)).as("dependencies between the starter's rooms").isEmpty();
  }

  @Test
  void aSiblingImport_aLinkToARoom_orARootImportOfARoom_isFound() {
    String root = "package io.ringtail.spring;\n\nclass Shared {}\n";
    String internal = "package io.ringtail.spring.internal;\n\nclass Plumbing {}\n";
    String a =
        "package io.ringtail.spring.a;\n\n"
            + "import io.ringtail.spring.Shared;\nimport io.ringtail.spring.internal.Plumbing;\n\n"
            + "class A {}\n";
    String b = "package io.ringtail.spring.b;\n\nclass B {}\n";
    String bInner =
        "package io.ringtail.spring.b.inner;\n\nimport io.ringtail.spring.b.B;\n\nclass C {}\n";

    assertThat(violations(PackageCyclesTest.dependencies(List.of(root, internal, a, b, bInner))))
        .as("a room on the root and internal, a room's own subpackage on the room")
        .isEmpty();
    assertThat(
            violations(
                PackageCyclesTest.dependencies(
                    List.of(
                        root,
                        internal,
                        a.replace("class A", "import io.ringtail.spring.b.B;\n\nclass A"),
                        b,
                        bInner.replace(
                            "class C", "/** See {@link io.ringtail.spring.a.A}. */\nclass C")))))
        .containsExactly(
            "io.ringtail.spring.a -> io.ringtail.spring.b",
            "io.ringtail.spring.b.inner -> io.ringtail.spring.a");
    assertThat(
            violations(
                PackageCyclesTest.dependencies(
                    List.of(
                        root.replace(
                            "class Shared", "import io.ringtail.spring.a.A;\n\nclass Shared"),
                        internal.replace(
                            "class Plumbing",
                            "/** See {@link io.ringtail.spring.b.B}. */\nclass Plumbing"),
                        a,
                        b))))
        .containsExactly(
            "io.ringtail.spring -> io.ringtail.spring.a",
            "io.ringtail.spring.internal -> io.ringtail.spring.b");
  }

  /**
   * Every dependency that breaks the rule, as {@code from -> to}: of a room on another room, or of
   * the root or {@code internal} on a room.
   */
  static List<String> violations(Map<String, Set<String>> graph) {
    List<String> out = new ArrayList<>();
    graph.forEach(
        (from, targets) -> {
          if (!from.equals(ROOT_PACKAGE) && !from.startsWith(ROOT_PACKAGE + ".")) {
            return;
          }
          String fromRoom = roomOf(from);
          for (String to : targets) {
            String toRoom = roomOf(to);
            if (toRoom != null && !toRoom.equals(fromRoom)) {
              out.add(from + " -> " + to);
            }
          }
        });
    return out;
  }

  /** The room a starter package belongs to; null for the root, {@code internal} and the rest. */
  static String roomOf(String pkg) {
    if (!pkg.startsWith(ROOT_PACKAGE + ".")) {
      return null;
    }
    String rest = pkg.substring(ROOT_PACKAGE.length() + 1);
    String room =
        ROOT_PACKAGE + "." + (rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest);
    return room.equals(INTERNAL) ? null : room;
  }

  /** The text of every Java file under {@code dir}. */
  static List<String> sources(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.toString().endsWith(".java")) {
          out.add(Files.readString(f));
        }
      }
    }
    return out;
  }

  /** The starter's packages: each folder under its main sources that holds a Java file. */
  static Set<String> packages() throws IOException {
    Set<String> out = new TreeSet<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .forEach(f -> out.add(SOURCES.relativize(f.getParent()).toString().replace('/', '.')));
    }
    return out;
  }
}
