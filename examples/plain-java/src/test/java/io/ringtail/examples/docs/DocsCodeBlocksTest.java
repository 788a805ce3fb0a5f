package io.ringtail.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps the documentation's code true: every Java block in README.md and docs/*.md must be,
 * verbatim, a snippet that some test compiles and runs, marked in its source with {@code //
 * docs:NAME:start} and {@code // docs:NAME:end}; every marked snippet must appear in some page; and
 * every relative link of a page must lead to a file that exists.
 */
class DocsCodeBlocksTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)\\s]*)?\\)");

  @Test
  void everyJavaBlockOfThePages_isASnippetThatATestRuns() {
    Map<String, String> snippets = snippets();
    List<String> unbacked = new ArrayList<>();
    for (Path page : pages()) {
      for (String block : DocPages.javaBlocks(page)) {
        if (!snippets.containsValue(block)) {
          unbacked.add(ROOT.relativize(page) + ":\n" + block);
        }
      }
    }
    assertThat(unbacked)
        .as("Java blocks that no test source holds verbatim between // docs:NAME:start and :end")
        .isEmpty();
  }

  @Test
  void everyMarkedSnippet_isShownOnAPage() {
    StringBuilder all = new StringBuilder();
    for (Path page : pages()) {
      for (String block : DocPages.javaBlocks(page)) {
        all.append(block).append("\n\u0000\n");
      }
    }
    List<String> orphans = new ArrayList<>();
    snippets()
        .forEach(
            (name, code) -> {
              if (!all.toString().contains(code + "\n\u0000\n")) {
                orphans.add(name);
              }
            });
    assertThat(orphans)
        .as("snippets marked for the docs that no page shows as a Java block")
        .isEmpty();
  }

  @Test
  void everyRelativeLinkOfThePages_leadsToAFile() {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      Matcher m = LINK.matcher(read(page));
      while (m.find()) {
        String target = m.group(1);
        if (!target.contains("://")
            && !target.startsWith("mailto:")
            && !Files.exists(page.getParent().resolve(target))) {
          broken.add(ROOT.relativize(page) + " -> " + target);
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void thePagesAreFound() {
    assertThat(pages())
        .extracting(p -> ROOT.relativize(p).toString())
        .contains(
            "README.md",
            "docs/windows.md",
            "docs/keyed-and-decisions.md",
            "docs/micrometer-and-alerts.md",
            "docs/redis.md",
            "docs/performance.md",
            "docs/dashboard-and-examples.md");
    assertThat(snippets()).containsKeys("first-example", "redis-quick-start", "alert-rule");
  }

  private static List<Path> pages() {
    return DocPages.pages(ROOT);
  }

  private static Map<String, String> snippets() {
    return DocPages.snippets(ROOT);
  }

  private static String read(Path p) {
    return DocPages.read(p);
  }
}
