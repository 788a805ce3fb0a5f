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
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The promises the build makes to people who depend on it, read from the POMs: the BOM manages
 * every library artifact at the project's version, every library jar names its module, the programs
 * are neither installed nor deployed, and no module pins a dependency or plugin version of its own
 * (the parent manages them all).
 */
class BuildLayoutTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  @Test
  void theBomManagesEveryLibraryArtifact_atTheProjectVersion() throws Exception {
    Document root = parse(ROOT.resolve("pom.xml"));
    Document bom = parse(ROOT.resolve("bom/pom.xml"));
    String version = child(root.getDocumentElement(), "version");
    assertThat(child(bom.getDocumentElement(), "version")).isEqualTo(version);

    List<String> managed = new ArrayList<>();
    for (Element d : elements(bom, "dependencyManagement", "dependency")) {
      managed.add(child(d, "artifactId"));
      assertThat(child(d, "version")).isIn("${project.version}", version);
    }
    assertThat(libraries().keySet()).isNotEmpty().allSatisfy(a -> assertThat(managed).contains(a));
    assertThat(libraries().keySet())
        .contains("ringtail-core", "ringtail-testkit", "ringtail-micrometer", "ringtail-redis");
  }

  @Test
  void everyLibraryJar_namesItsModule_andTheProgramsAreNotPublished() throws Exception {
    for (Map.Entry<String, Path> library : libraries().entrySet()) {
      String pom = Files.readString(library.getValue());
      assertThat(pom).as(library.getKey()).contains("<Automatic-Module-Name>io.ringtail.");
    }
    for (String program :
        List.of(
            "benchmarks",
            "benchmarks/toolkit",
            "benchmarks/jmh",
            "benchmarks/reports",
            "benchmarks/nab",
            "examples/plain-java",
            "examples/spring-boot",
            "test-support")) {
      String pom = Files.readString(ROOT.resolve(program).resolve("pom.xml"));
      assertThat(pom)
          .as(program)
          .contains("<maven.install.skip>true</maven.install.skip>")
          .contains("<maven.deploy.skip>true</maven.deploy.skip>");
    }
  }

  @Test
  void noModulePinsAVersion_theParentManagesThemAll() throws Exception {
    List<String> pinned = new ArrayList<>();
    for (String module : modules()) {
      if (module.equals("bom")) {
        // stands alone on purpose: importing it must bring nothing but Ringtail's versions
        continue;
      }
      Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
      NodeList versions = pom.getElementsByTagName("version");
      for (int i = 0; i < versions.getLength(); i++) {
        Node owner = versions.item(i).getParentNode();
        String kind = owner.getNodeName();
        if ((kind.equals("dependency") || kind.equals("plugin"))
            && !owner
                .getParentNode()
                .getParentNode()
                .getNodeName()
                .equals("dependencyManagement")) {
          pinned.add(module + ": " + child((Element) owner, "artifactId"));
        }
      }
    }
    assertThat(pinned).isEmpty();
  }

  /** Library modules: jar packaging, installed; artifactId to pom path. */
  private static Map<String, Path> libraries() throws Exception {
    Map<String, Path> libraries = new LinkedHashMap<>();
    for (String module : modules()) {
      Path path = ROOT.resolve(module).resolve("pom.xml");
      Document pom = parse(path);
      String packaging = child(pom.getDocumentElement(), "packaging");
      boolean published =
          !Files.readString(path).contains("<maven.install.skip>true</maven.install.skip>");
      if ((packaging == null || packaging.equals("jar")) && published) {
        libraries.put(child(pom.getDocumentElement(), "artifactId"), path);
      }
    }
    return libraries;
  }

  @Test
  void everyModuleIsASiblingFolder_orAPomOnlyAggregatorOfItsChildren() throws Exception {
    for (String module : modules()) {
      Path folder = ROOT.resolve(module);
      boolean aggregator =
          !elements(parse(folder.resolve("pom.xml")), "modules", "module").isEmpty();
      if (aggregator) {
        assertThat(child(parse(folder.resolve("pom.xml")).getDocumentElement(), "packaging"))
            .as(module)
            .isEqualTo("pom");
        assertThat(folder.resolve("src")).as(module).doesNotExist();
      }
    }
  }

  @Test
  void theArchitecturePage_listsEveryModuleAndEveryLibraryPackage() throws Exception {
    String page = Files.readString(ROOT.resolve("docs/architecture.md"));
    assertThat(firstColumn(page, "## Modules"))
        .as("modules in docs/architecture.md")
        .containsExactlyInAnyOrderElementsOf(modules());

    Set<String> packages = new TreeSet<>();
    for (Path library : libraries().values()) {
      packages.addAll(packagesUnder(library.getParent().resolve("src/main/java")));
    }
    // the Redis test kit, published as ringtail-redis's test-jar
    packages.add("io.ringtail.redis.testkit");
    Set<String> everyPackage = new TreeSet<>(packages);
    for (String module : modules()) {
      everyPackage.addAll(packagesUnder(ROOT.resolve(module).resolve("src/main/java")));
    }
    List<String> listed = firstColumn(page, "## Packages");
    assertThat(listed).as("packages in docs/architecture.md").containsAll(packages);
    assertThat(everyPackage).as("packages that exist").containsAll(listed);
  }

  /**
   * No class of the benchmarks (main or test sources) sits in a package a library module declares:
   * a benchmark reaches the libraries through their public API, as an application does, and no
   * split package hides package-private use.
   */
  @Test
  void noBenchmarkClass_isInALibraryPackage() throws Exception {
    Set<String> library = new TreeSet<>();
    for (Path pom : libraries().values()) {
      library.addAll(packagesUnder(pom.getParent().resolve("src/main/java")));
    }
    assertThat(library).contains("io.ringtail", "io.ringtail.redis");
    List<String> shared = new ArrayList<>();
    List<String> benchmarks = modules().stream().filter(m -> m.startsWith("benchmarks/")).toList();
    assertThat(benchmarks).contains("benchmarks/jmh", "benchmarks/nab");
    for (String module : benchmarks) {
      for (String sources : List.of("src/main/java", "src/test/java")) {
        for (String p : packagesUnder(ROOT.resolve(module).resolve(sources))) {
          if (library.contains(p)) {
            shared.add(module + "/" + sources + ": " + p);
          }
        }
      }
    }
    assertThat(shared).as("benchmark packages that a library module also declares").isEmpty();
  }

  /**
   * README.md's two tables: "Use it from Maven" names every published library artifact, "Modules"
   * every module that is published or sits at the top of the reactor (a top-level aggregator's
   * entry may be its children instead: {@code examples/plain-java} for {@code examples}), with its
   * artifact; neither names what does not exist. Unpublished modules below the top level (an
   * aggregator's children) may be left out.
   */
  @Test
  void theReadmeTables_listEveryPublishedArtifactAndEveryTopLevelModule() throws Exception {
    String readme = Files.readString(ROOT.resolve("README.md"));
    List<String> artifacts = firstColumn(readme, "## Use it from Maven");
    assertThat(artifacts)
        .as("artifacts in README.md's table under \"Use it from Maven\"")
        .containsAll(libraries().keySet());
    assertThat(libraries().keySet()).as("published artifacts").containsAll(artifacts);

    Map<String, String> listed = new LinkedHashMap<>();
    for (List<String> row : rows(readme, "## Modules")) {
      listed.put(unquote(row.get(0)), unquote(row.get(1)));
    }
    List<String> modules = modules();
    assertThat(modules).as("modules of the reactor").containsAll(listed.keySet());
    List<String> topLevel = new ArrayList<>();
    for (Element m : elements(parse(ROOT.resolve("pom.xml")), "modules", "module")) {
      topLevel.add(m.getTextContent().trim());
    }
    List<String> missing = new ArrayList<>();
    for (String module : modules) {
      Path pom = ROOT.resolve(module).resolve("pom.xml");
      boolean published =
          !Files.readString(pom).contains("<maven.install.skip>true</maven.install.skip>");
      boolean covered =
          listed.containsKey(module)
              || (!published && listed.keySet().stream().anyMatch(m -> m.startsWith(module + "/")));
      if ((published || topLevel.contains(module)) && !covered) {
        missing.add(module);
      }
      if (published && listed.containsKey(module)) {
        assertThat(listed.get(module))
            .as("artifact of %s in README.md's module table", module)
            .isEqualTo(child(parse(pom).getDocumentElement(), "artifactId"));
      }
    }
    assertThat(missing).as("modules missing from README.md's table under \"Modules\"").isEmpty();
  }

  /**
   * The architecture page's table of the fleet machinery names classes that exist, and every {@code
   * Fleet*} class of redis-backend is in it.
   */
  @Test
  void theArchitecturePage_namesTheFleetClassesThatExist() throws Exception {
    String page = Files.readString(ROOT.resolve("docs/architecture.md"));
    List<String> named = firstColumn(page, "## Inside the fleet histogram windows");
    Path redis = ROOT.resolve("redis-backend/src/main/java/io/ringtail/redis");
    Path core = ROOT.resolve("core/src/main/java/io/ringtail");
    assertThat(named)
        .as("classes of the fleet table in docs/architecture.md")
        .contains("FleetKeys", "FleetCodec", "FleetPublisher", "FleetReader", "KeyWindow")
        .allSatisfy(
            c ->
                assertThat(
                        Files.exists(redis.resolve(c + ".java"))
                            || Files.exists(core.resolve(c + ".java")))
                    .as("%s exists in redis-backend or core", c)
                    .isTrue());
    try (Stream<Path> files = Files.list(redis)) {
      List<String> fleet =
          files
              .map(f -> f.getFileName().toString())
              .filter(f -> f.startsWith("Fleet") && f.endsWith(".java"))
              .map(f -> f.substring(0, f.length() - ".java".length()))
              .toList();
      assertThat(named).as("Fleet* classes in the fleet table").containsAll(fleet);
    }
  }

  /** The cells of each row of the first table after {@code heading}, header row excluded. */
  private static List<List<String>> rows(String page, String heading) {
    int start = page.indexOf("\n" + heading + "\n");
    assertThat(start).as(heading).isNotNegative();
    List<List<String>> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : page.substring(start + heading.length() + 2).split("\n")) {
      if (line.startsWith("|")) {
        if (inTable && !line.startsWith("| ---")) {
          List<String> cells = new ArrayList<>();
          for (String cell : line.substring(1, line.length() - 1).split("\\|")) {
            cells.add(cell.trim());
          }
          rows.add(cells);
        }
        inTable = true;
      } else if (inTable) {
        break;
      }
    }
    return rows;
  }

  /** The text inside a cell's first pair of backticks, or the cell. */
  private static String unquote(String cell) {
    int open = cell.indexOf('`');
    return open < 0 ? cell : cell.substring(open + 1, cell.indexOf('`', open + 1));
  }

  /** The first cell of each row of the table after {@code heading}, without its backticks. */
  private static List<String> firstColumn(String page, String heading) {
    int start = page.indexOf("\n" + heading + "\n");
    assertThat(start).as(heading).isNotNegative();
    List<String> cells = new ArrayList<>();
    boolean inTable = false;
    for (String line : page.substring(start + heading.length() + 2).split("\n")) {
      if (line.startsWith("|")) {
        inTable = true;
        String cell = line.substring(1, line.indexOf('|', 1)).trim();
        if (cell.startsWith("`")) {
          cells.add(cell.substring(1, cell.indexOf('`', 1)));
        }
      } else if (inTable) {
        break;
      }
    }
    return cells;
  }

  private static Set<String> packagesUnder(Path sources) throws IOException {
    Set<String> packages = new TreeSet<>();
    if (Files.isDirectory(sources)) {
      try (Stream<Path> files = Files.walk(sources)) {
        files
            .filter(f -> f.toString().endsWith(".java"))
            .forEach(
                f -> packages.add(sources.relativize(f.getParent()).toString().replace('/', '.')));
      }
    }
    return packages;
  }

  /** Every module of the reactor, aggregators' children included, as paths from the root. */
  private static List<String> modules() throws Exception {
    List<String> modules = new ArrayList<>();
    addModules(Path.of(""), modules);
    return modules;
  }

  private static void addModules(Path parent, List<String> modules) throws Exception {
    for (Element m :
        elements(parse(ROOT.resolve(parent).resolve("pom.xml")), "modules", "module")) {
      Path module = parent.resolve(m.getTextContent().trim());
      modules.add(module.toString());
      addModules(module, modules);
    }
  }

  private static List<Element> elements(Document doc, String parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = doc.getElementsByTagName(name);
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n.getParentNode().getNodeName().equals(parent)
          || n.getParentNode().getParentNode().getNodeName().equals(parent)) {
        found.add((Element) n);
      }
    }
    return found;
  }

  private static String child(Element e, String name) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n.getNodeName().equals(name)) {
        return n.getTextContent().trim();
      }
    }
    return null;
  }

  private static Document parse(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }
}
