package io.ringtail.benchmarks.toolkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A report's block in a docs page: the text between the lines {@code begin} and {@code end} (say
 * {@code <!-- failover-report:begin -->} and {@code <!-- failover-report:end -->}), which a report
 * run with {@code --docs FILE} replaces by its newest markdown.
 */
public final class DocsBlock {
  private DocsBlock() {}

  /**
   * Replaces the block between {@code begin} and {@code end} in {@code doc} by {@code markdown}.
   *
   * @throws IllegalArgumentException if the page lacks the two markers in that order
   */
  public static void replace(Path doc, String begin, String end, String markdown)
      throws IOException {
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int b = text.indexOf(begin);
    int e = text.indexOf(end);
    if (b < 0 || e < b) {
      throw new IllegalArgumentException(
          "docs must contain " + begin + " ... " + end + ", but was " + doc);
    }
    Files.writeString(
        doc,
        text.substring(0, b + begin.length()) + "\n" + markdown + text.substring(e),
        StandardCharsets.UTF_8);
    System.out.println("Updated " + doc);
  }
}
