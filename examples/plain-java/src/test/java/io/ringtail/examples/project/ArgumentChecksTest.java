package io.ringtail.examples.project;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rule of docs/argument-checks.md, read from the library's main sources (core, testkit,
 * redis-backend, every module under integrations/): every {@code IllegalArgumentException} is built
 * by {@code io.ringtail.internal.Checks}, so that bad input fails the same way everywhere. A file
 * that builds one itself fails this test with its file and line.
 */
class ArgumentChecksTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  private static final Path CHECKS = Path.of("core/src/main/java/io/ringtail/internal/Checks.java");

  private static final Pattern RAW = Pattern.compile("\\bnew\\s+IllegalArgumentException\\b");

  @Test
  void everyIllegalArgumentException_isBuiltByChecks() throws IOException {
    List<String> outsideChecks = new ArrayList<>();
    for (Path sources : librarySources()) {
      try (Stream<Path> files = Files.walk(sources)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          if (!ROOT.relativize(file).equals(CHECKS)) {
            outsideChecks.addAll(rawThrows(file));
          }
        }
      }
    }
    assertThat(outsideChecks)
        .as(
            "IllegalArgumentExceptions built outside io.ringtail.internal.Checks (use a requireX"
                + " check, throw Checks.invalid(name, requirement, value), or"
                + " Checks.invalidConfiguration(message) for a configuration refused as a whole)")
        .isEmpty();
  }

  @Test
  void theScan_coversEveryLibraryModule_andFindsTheOnesChecksBuilds() throws IOException {
    List<String> scanned = new ArrayList<>();
    for (Path sources : librarySources()) {
      scanned.add(ROOT.relativize(sources).toString());
    }
    assertThat(scanned)
        .contains(
            "core/src/main/java",
            "testkit/src/main/java",
            "redis-backend/src/main/java",
            "integrations/micrometer/src/main/java",
            "integrations/opentelemetry/src/main/java",
            "integrations/prometheus/src/main/java",
            "integrations/spring-boot-starter/src/main/java");
    assertThat(rawThrows(ROOT.resolve(CHECKS))).isNotEmpty();
  }

  /** {@code file:line} of each line of {@code file} that builds an IllegalArgumentException. */
  private static List<String> rawThrows(Path file) throws IOException {
    List<String> places = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (!line.startsWith("*") && !line.startsWith("//") && RAW.matcher(line).find()) {
        places.add(ROOT.relativize(file) + ":" + (i + 1));
      }
    }
    return places;
  }

  /** The main sources of core, testkit, redis-backend and every module under integrations/. */
  private static List<Path> librarySources() throws IOException {
    List<Path> modules = new ArrayList<>();
    modules.add(ROOT.resolve("core"));
    modules.add(ROOT.resolve("testkit"));
    modules.add(ROOT.resolve("redis-backend"));
    try (Stream<Path> integrations = Files.list(ROOT.resolve("integrations"))) {
      integrations.sorted().forEach(modules::add);
    }
    List<Path> sources = new ArrayList<>();
    for (Path module : modules) {
      Path main = module.resolve("src/main/java");
      if (Files.isDirectory(main)) {
        sources.add(main);
      }
    }
    return sources;
  }
}
