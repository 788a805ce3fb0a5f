package io.ringtail.examples.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The documentation pages (README.md and docs/*.md), their Java blocks, and the snippets of the
 * project's sources marked {@code // docs:NAME:start} .. {@code // docs:NAME:end}, their common
 * indentation removed. {@link DocsCodeBlocksTest} checks the blocks against the snippets; {@link
 * #main} (run by {@code .ci/format} after reformatting) rewrites each block that differs from a
 * snippet only in whitespace into that snippet, and leaves any other block for the test to name.
 */
final class DocPages {
  static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```$", Pattern.DOTALL);
  private static final Pattern SNIPPET =
      Pattern.compile("// docs:([\\w-]+):start\\n(.*?)\\n[ \\t]*// docs:\\1:end", Pattern.DOTALL);

  private DocPages() {}

  /** README.md, then docs/*.md in name order. */
  static List<Path> pages(Path root) {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  /** The Java blocks of a page, trailing whitespace removed. */
  static List<String> javaBlocks(Path page) {
    List<String> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(read(page));
    while (m.find()) {
      blocks.add(m.group(1).stripTrailing());
    }
    return blocks;
  }

  /**
   * Marked snippets of every module's sources, by name.
   *
   * @throws IllegalStateException if a name is marked twice
   */
  static Map<String, String> snippets(Path root) {
    Map<String, String> snippets = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !root.relativize(p).toString().contains("target/"))
          .filter(p -> root.relativize(p).toString().contains("src/"))
          .sorted()
          .forEach(
              p -> {
                Matcher m = SNIPPET.matcher(read(p));
                while (m.find()) {
                  String code = m.group(2).stripIndent().stripTrailing();
                  if (snippets.put(m.group(1), code) != null) {
                    throw new IllegalStateException(
                        "snippet " + m.group(1) + " marked twice (again in " + p + ")");
                  }
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return snippets;
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Rewrites whitespace-only differences of the pages' Java blocks; argument: the project root. */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    Map<String, String> byShape = new HashMap<>();
    for (String snippet : snippets(root).values()) {
      byShape.put(shape(snippet), snippet);
    }
    int changed = 0;
    for (Path page : pages(root)) {
      String text = read(page);
      Matcher m = JAVA_BLOCK.matcher(text);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String block = m.group(1).stripTrailing();
        String snippet = byShape.get(shape(block));
        String replacement = m.group();
        if (snippet != null && !snippet.equals(block)) {
          replacement = "```java\n" + snippet + "\n```";
          changed++;
        }
        m.appendReplacement(out, Matcher.quoteReplacement(replacement));
      }
      m.appendTail(out);
      if (!out.toString().equals(text)) {
        Files.writeString(page, out.toString());
        System.out.println("updated " + root.relativize(page));
      }
    }
    System.out.println(changed + " Java blocks rewritten from their snippets");
  }

  /** The code without its whitespace: what a formatter leaves unchanged. */
  private static String shape(String code) {
    return code.replaceAll("\\s+", "");
  }
}
