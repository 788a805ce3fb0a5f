import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Rewrites each Java block of README.md and docs/*.md that differs from a marked test snippet
 * ({@code // docs:NAME:start} .. {@code // docs:NAME:end}) only in whitespace into that snippet,
 * verbatim, as DocsCodeBlocksTest reads it. Run after reformatting: {@code java
 * .ci/SyncDocBlocks.java} from the project root. A block that differs in anything but
 * whitespace is left alone (and the test names it).
 */
public class SyncDocBlocks {
  private static final Pattern JAVA_BLOCK =
      Pattern.compile("(?m)^```java\\n(.*?)^```$", Pattern.DOTALL);
  private static final Pattern SNIPPET =
      Pattern.compile("// docs:([\\w-]+):start\\n(.*?)\\n[ \\t]*// docs:\\1:end", Pattern.DOTALL);

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    Map<String, String> byShape = new HashMap<>();
    for (String snippet : snippets(root)) {
      byShape.put(shape(snippet), snippet);
    }
    int changed = 0;
    for (Path page : pages(root)) {
      String text = Files.readString(page);
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

  private static List<Path> pages(Path root) throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  /** Marked snippets of every module's sources, their common indentation removed. */
  private static List<String> snippets(Path root) throws IOException {
    List<String> snippets = new ArrayList<>();
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
                  snippets.add(m.group(2).stripIndent().stripTrailing());
                }
              });
    }
    return snippets;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
