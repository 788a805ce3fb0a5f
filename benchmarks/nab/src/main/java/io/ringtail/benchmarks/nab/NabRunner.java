package io.ringtail.benchmarks.nab;

import io.ringtail.anomaly.AnomalyDetector;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the library's detectors over the NAB corpus, writes NAB's result layout ({@code
 * <detector>/<category>/<detector>_<file>.csv} with {@code timestamp,value,anomaly_score}), reads
 * those files back, scores them with {@link NabScorer} (threshold tuned per profile over the
 * corpus) and prints the table beside the published scoreboard.
 *
 * <p>Arguments: detector names to run (default: all of {@link NabDetectors#library()}). System
 * properties: {@value NabCorpus#DIR_PROPERTY} (the corpus, default {@code ../shared/nab} beside the
 * project root) and {@value #OUT_PROPERTY} (where result files go, default {@code
 * benchmarks/target/nab-results}).
 *
 * <p>A program: its static methods keep no state and may be called from any thread.
 */
public final class NabRunner {
  /** System property naming the directory result files are written to. */
  public static final String OUT_PROPERTY = "ringtail.nab.out";

  private static final Pattern SCOREBOARD_ROW =
      Pattern.compile(
          "^\\|\\s*([^|]+?)\\s*\\|\\s*([0-9.]+)\\s*\\|\\s*([0-9.]+)\\s*\\|\\s*([0-9.]+)\\s*\\|\\s*$");

  private NabRunner() {}

  /** One detector's row: its scores per profile and its cost. */
  record Row(String detector, List<NabScorer.ProfileScore> scores, double nanosPerPoint) {}

  public static void main(String[] args) {
    NabCorpus corpus = NabCorpus.load();
    NabScorer scorer = NabScorer.withCorpusProfiles(corpus);
    Path out = outputDir();
    Map<String, Supplier<AnomalyDetector>> library = NabDetectors.library();
    List<String> names = args.length == 0 ? List.copyOf(library.keySet()) : List.of(args);
    System.out.printf(
        Locale.ROOT,
        "NAB corpus %s: %d series, %d points, %d windows; results in %s%n",
        corpus.dir(),
        corpus.series().size(),
        corpus.pointCount(),
        corpus.windowCount(),
        out);
    List<Row> rows = new ArrayList<>();
    for (String name : names) {
      Supplier<AnomalyDetector> detector = library.get(name);
      if (detector == null) {
        throw new IllegalArgumentException(
            "detector must be one of " + library.keySet() + ", but was " + name);
      }
      NabDetectors.run(corpus, detector); // warm-up: the JIT compiles the detector first
      long start = System.nanoTime();
      List<double[]> scores = NabDetectors.run(corpus, detector);
      double nanosPerPoint = (System.nanoTime() - start) / (double) corpus.pointCount();
      write(out, name, corpus, scores);
      rows.add(new Row(name, scorer.score(read(out, name, corpus)), nanosPerPoint));
    }
    System.out.print(table(rows, readScoreboard(corpus.dir().resolve("README.md"))));
  }

  /** Where result files go: {@value #OUT_PROPERTY}, or {@code benchmarks/target/nab-results}. */
  static Path outputDir() {
    String configured = System.getProperty(OUT_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    return NabCorpus.projectRoot().resolve("benchmarks/target/nab-results");
  }

  /** Writes one detector's scores in NAB's result layout under {@code dir/<detector>/}. */
  public static void write(Path dir, String detector, NabCorpus corpus, List<double[]> scores) {
    try {
      for (int s = 0; s < corpus.series().size(); s++) {
        NabCorpus.Series series = corpus.series().get(s);
        Path file = resultFile(dir, detector, series);
        Files.createDirectories(file.getParent());
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
          w.write("timestamp,value,anomaly_score\n");
          double[] x = scores.get(s);
          for (int i = 0; i < x.length; i++) {
            w.write(series.timestamps()[i]);
            w.write(',');
            w.write(plain(series.values()[i]));
            w.write(',');
            w.write(Double.toString(x[i]));
            w.write('\n');
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one detector's {@code anomaly_score} column back from NAB's result layout. */
  public static List<double[]> read(Path dir, String detector, NabCorpus corpus) {
    try {
      List<double[]> out = new ArrayList<>();
      for (NabCorpus.Series series : corpus.series()) {
        List<String> lines = Files.readAllLines(resultFile(dir, detector, series));
        if (!lines.get(0).trim().endsWith("anomaly_score")) {
          throw new IllegalStateException("not a NAB result file: " + lines.get(0));
        }
        double[] x = new double[lines.size() - 1];
        for (int i = 1; i < lines.size(); i++) {
          String line = lines.get(i);
          x[i - 1] = Double.parseDouble(line.substring(line.lastIndexOf(',') + 1).trim());
        }
        out.add(x);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path resultFile(Path dir, String detector, NabCorpus.Series series) {
    return dir.resolve(detector).resolve(series.category()).resolve(detector + "_" + series.name());
  }

  private static String plain(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  /** The published rows of the corpus README's scoreboard: name and three scores. */
  static List<String[]> readScoreboard(Path readme) {
    List<String[]> rows = new ArrayList<>();
    if (!Files.isRegularFile(readme)) {
      return rows;
    }
    try {
      for (String line : Files.readAllLines(readme)) {
        Matcher m = SCOREBOARD_ROW.matcher(line);
        if (m.matches()) {
          rows.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4)});
        }
      }
      return rows;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Our rows and the published ones in one table, by standard score. */
  static String table(List<Row> rows, List<String[]> published) {
    record Line(String name, double standard, double lowFp, double lowFn, String cost) {}
    List<Line> lines = new ArrayList<>();
    for (Row r : rows) {
      lines.add(
          new Line(
              "**" + r.detector() + "**",
              r.scores().get(0).normalized(),
              r.scores().get(1).normalized(),
              r.scores().get(2).normalized(),
              String.format(Locale.ROOT, "%.0f", r.nanosPerPoint())));
    }
    for (String[] p : published) {
      lines.add(
          new Line(
              p[0] + " (published)",
              Double.parseDouble(p[1]),
              Double.parseDouble(p[2]),
              Double.parseDouble(p[3]),
              ""));
    }
    lines.sort(Comparator.comparingDouble(Line::standard).reversed());
    StringBuilder b = new StringBuilder();
    b.append("| detector | standard | reward low FP | reward low FN | ns/point (whole run) |\n");
    b.append("| --- | ---: | ---: | ---: | ---: |\n");
    for (Line l : lines) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %.1f | %.1f | %s |%n",
              l.name(),
              l.standard(),
              l.lowFp(),
              l.lowFn(),
              l.cost()));
    }
    b.append("\nTuned thresholds and counts at them (windows detected / missed, FP points):\n");
    for (Row r : rows) {
      b.append(r.detector()).append(':');
      for (NabScorer.ProfileScore s : r.scores()) {
        b.append(
            String.format(
                Locale.ROOT,
                "  %s t=%.6f %d/%d fp=%d",
                s.profile().name(),
                s.threshold(),
                s.detectedWindows(),
                s.missedWindows(),
                s.falsePositives()));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
