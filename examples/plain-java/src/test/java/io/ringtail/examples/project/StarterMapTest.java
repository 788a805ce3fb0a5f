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
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "Inside the starter" map of docs/architecture.md holds to the code: every package of the
 * starter has its row; every class a row names (its auto-configurations and public faces) exists in
 * that package, for the packages that exist (a row may name the package a part is moving to); and
 * every auto-configuration the starter declares (its {@code AutoConfiguration.imports}, for Boot 4
 * and for Boot 3.5) is named in the map.
 */
class StarterMapTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final String HEADING = "## Inside the starter";
  private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");
  private static final Pattern CLASS = Pattern.compile("[A-Z]\\w*");
  private static final List<Path> IMPORTS =
      List.of(
          Path.of(
              "integrations/spring-boot-starter/src/main/resources/META-INF/spring/"
                  + "org.springframework.boot.autoconfigure.AutoConfiguration.imports"),
          Path.of(
              "integrations/spring-boot-starter/src/boot3/resources/"
                  + "org.springframework.boot.autoconfigure.AutoConfiguration.imports"));

  @Test
  void theMap_namesEveryPackage_andClassesThatExist_andEveryAutoConfiguration() throws IOException {
    Map<String, Row> map = map(Files.readString(ROOT.resolve("docs/architecture.md")));
    Set<String> packages = StarterRoomsTest.packages();

    assertThat(packages).as("the starter's packages").contains("io.ringtail.spring");
    assertThat(map.keySet()).as("packages in the starter map").containsAll(packages);
    for (Row row : map.values()) {
      Path folder = StarterRoomsTest.SOURCES.resolve(row.pkg().replace('.', '/'));
      if (!packages.contains(row.pkg())) {
        continue; // named before it exists: a part moving there
      }
      assertThat(row.classes())
          .as("classes the map names in %s", row.pkg())
          .allSatisfy(
              c -> assertThat(folder.resolve(c + ".java")).as("%s in %s", c, row.pkg()).exists());
    }
    Set<String> named = new TreeSet<>();
    map.values().forEach(r -> named.addAll(r.autoConfigurations()));
    for (Path imports : IMPORTS) {
      for (String line : Files.readAllLines(ROOT.resolve(imports))) {
        String name = line.trim();
        if (!name.isEmpty() && !name.startsWith("#")) {
          assertThat(named)
              .as("auto-configurations in the starter map, from %s", imports)
              .contains(name.substring(name.lastIndexOf('.') + 1));
        }
      }
    }
  }

  @Test
  void aRow_givesItsPackage_autoConfigurations_andFaces() {
    String page =
        "intro\n\n"
            + HEADING
            + "\n\ntext\n\n"
            + "| package | job | auto-configuration | public faces |\n"
            + "| --- | --- | --- | --- |\n"
            + "| `a.b` | the `x.*` settings | `AConfig`, `BConfig` | `Face`, `Other` |\n"
            + "| `a.b.internal` | plumbing | none | `Plumb` |\n"
            + "\n## Next\n\n| `z` | | | |\n";

    Map<String, Row> map = map(page);

    assertThat(map).containsOnlyKeys("a.b", "a.b.internal");
    assertThat(map.get("a.b").autoConfigurations()).containsExactly("AConfig", "BConfig");
    assertThat(map.get("a.b").classes()).containsExactly("AConfig", "BConfig", "Face", "Other");
    assertThat(map.get("a.b.internal").classes()).containsExactly("Plumb");
  }

  /** A row of the map: a package, the auto-configurations and the public faces it names. */
  record Row(String pkg, List<String> autoConfigurations, List<String> faces) {
    List<String> classes() {
      List<String> all = new ArrayList<>(autoConfigurations);
      all.addAll(faces);
      return all;
    }
  }

  /** The map's rows by package: the first table after its heading. */
  static Map<String, Row> map(String page) {
    int start = page.indexOf("\n" + HEADING + "\n");
    assertThat(start).as(HEADING).isNotNegative();
    Map<String, Row> rows = new LinkedHashMap<>();
    boolean inTable = false;
    for (String line : page.substring(start + HEADING.length() + 2).split("\n")) {
      if (!line.startsWith("|")) {
        if (inTable) {
          break;
        }
        continue;
      }
      boolean header = !inTable;
      inTable = true;
      if (header || line.startsWith("| ---")) {
        continue;
      }
      String[] cells = line.substring(1, line.length() - 1).split("\\|");
      assertThat(cells).as("cells of %s", line).hasSize(4);
      String pkg = quoted(cells[0]).get(0);
      rows.put(pkg, new Row(pkg, classesIn(cells[2]), classesIn(cells[3])));
    }
    return rows;
  }

  /** The class names quoted in a cell ({@code none} names none). */
  private static List<String> classesIn(String cell) {
    return quoted(cell).stream().filter(q -> CLASS.matcher(q).matches()).toList();
  }

  private static List<String> quoted(String cell) {
    List<String> out = new ArrayList<>();
    Matcher m = QUOTED.matcher(cell);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }
}
