package io.ringtail.benchmarks.toolkit;

/** The reports' markdown tables, a row at a time. */
public final class Markdown {
  private Markdown() {}

  /** Appends one table row of {@code cells}: {@code | a | b | c |} and a newline. */
  public static void row(StringBuilder md, String... cells) {
    md.append('|');
    for (String cell : cells) {
      md.append(' ').append(cell).append(" |");
    }
    md.append('\n');
  }
}
