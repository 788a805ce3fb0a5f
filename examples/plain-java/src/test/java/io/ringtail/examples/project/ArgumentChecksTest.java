package io.ringtail.examples.project;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rule of docs/argument-checks.md, read from the library's main sources (core, testkit,
 * redis-backend, every module under integrations/): every {@code IllegalArgumentException} is built
 * by {@code io.ringtail.internal.Checks}, so that bad input fails the same way everywhere. A file
 * that builds one itself fails this test with its file and line, unless {@link #NOT_YET_ON_CHECKS}
 * names it with exactly as many.
 */
class ArgumentChecksTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  private static final Path CHECKS = Path.of("core/src/main/java/io/ringtail/internal/Checks.java");

  private static final Pattern RAW = Pattern.compile("\\bnew\\s+IllegalArgumentException\\b");

  /**
   * The files that still build their own {@code IllegalArgumentException}, each with how many it
   * builds. The list may only shrink: a file moved to {@code Checks} must leave it (the test fails
   * while a file holds fewer than listed), and a new file or a new throw is never added.
   */
  private static final Map<String, Integer> NOT_YET_ON_CHECKS =
      new TreeMap<>(
          Map.of(
              "integrations/prometheus/src/main/java/io/ringtail/prometheus/WindowHistograms.java",
              8));

  @Test
  void everyIllegalArgumentException_isBuiltByChecks() throws IOException {
    Map<String, List<String>> found = new TreeMap<>();
    for (Path sources : librarySources()) {
      try (Stream<Path> files = Files.walk(sources)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          String name = ROOT.relativize(file).toString();
          if (ROOT.relativize(file).equals(CHECKS)) {
            continue;
          }
          List<String> lines = Files.readAllLines(file);
          for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (!line.startsWith("*") && !line.startsWith("//") && RAW.matcher(line).find()) {
              found.computeIfAbsent(name, k -> new ArrayList<>()).add(name + ":" + (i + 1));
            }
          }
        }
      }
    }

    List<String> outsideChecks = new ArrayList<>();
    found.forEach(
        (file, places) -> {
          if (places.size() > NOT_YET_ON_CHECKS.getOrDefault(file, 0)) {
            outsideChecks.addAll(places);
          }
        });
    assertThat(outsideChecks)
        .as(
            "IllegalArgumentExceptions built outside io.ringtail.internal.Checks (use a requireX"
                + " check, or throw Checks.invalid(name, requirement, value))")
        .isEmpty();

    Map<String, Integer> stale = new TreeMap<>();
    NOT_YET_ON_CHECKS.forEach(
        (file, allowed) -> {
          int now = found.getOrDefault(file, List.of()).size();
          if (now != allowed) {
            stale.put(file, now);
          }
        });
    assertThat(stale)
        .as("files of NOT_YET_ON_CHECKS that now build fewer: lower or remove their entries")
        .isEmpty();
  }

  @Test
  void theScan_coversEveryLibraryModule_andFindsTheListedFiles() throws IOException {
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
    assertThat(NOT_YET_ON_CHECKS.keySet()).allSatisfy(f -> assertThat(ROOT.resolve(f)).exists());
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
