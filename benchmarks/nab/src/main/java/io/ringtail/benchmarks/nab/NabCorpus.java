package io.ringtail.benchmarks.nab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Numenta Anomaly Benchmark corpus, read from a NAB checkout's {@code data/} and {@code
 * labels/combined_windows.json}: every series in file order, with its labelled windows as point
 * indices. Immutable once loaded.
 *
 * <p>The corpus is evaluation data, never part of the project's artifacts: it is read from {@code
 * ../shared/nab} beside the project root, or from the directory named by the system property
 * {@value #DIR_PROPERTY}.
 */
public final class NabCorpus {
  /** System property naming the NAB directory (holding {@code data/} and {@code labels/}). */
  public static final String DIR_PROPERTY = "ringtail.nab.dir";

  private static final Pattern WINDOW =
      Pattern.compile("\\[\\s*\"([^\"]+)\"\\s*,\\s*\"([^\"]+)\"\\s*\\]");
  private static final Pattern FILE_ENTRY = Pattern.compile("\"([^\"]+\\.csv)\"\\s*:\\s*\\[");

  private final Path dir;
  private final List<Series> series;

  /** One labelled series: its values in order and its anomaly windows as inclusive indices. */
  public record Series(
      String category, String name, String[] timestamps, double[] values, int[][] windows) {

    /** {@code category/name}, as the labels file names it. */
    public String path() {
      return category + "/" + name;
    }

    /** Points in the probationary period: 15 % of the series, at most 750. */
    public int probation() {
      return (int) Math.min(Math.floor(0.15 * values.length), 0.15 * 5000);
    }
  }

  private NabCorpus(Path dir, List<Series> series) {
    this.dir = dir;
    this.series = List.copyOf(series);
  }

  /** The series, sorted by path. */
  public List<Series> series() {
    return series;
  }

  /** The series {@code keep} accepts, in order, as a corpus of their own (for cross-validation). */
  public NabCorpus subset(Predicate<Series> keep) {
    return new NabCorpus(dir, series.stream().filter(keep).toList());
  }

  /** The directory the corpus was read from. */
  public Path dir() {
    return dir;
  }

  /** Windows over all series. */
  public int windowCount() {
    int n = 0;
    for (Series s : series) {
      n += s.windows().length;
    }
    return n;
  }

  /** Points over all series. */
  public long pointCount() {
    long n = 0;
    for (Series s : series) {
      n += s.values().length;
    }
    return n;
  }

  /**
   * Where the corpus is: the {@value #DIR_PROPERTY} property if set, otherwise {@code
   * ../shared/nab} relative to the project root (the nearest directory at or above the working
   * directory that holds {@code benchmarks/} and {@code core/}).
   */
  public static Path locate() {
    String configured = System.getProperty(DIR_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    Path root = projectRoot();
    Path parent = root.getParent() == null ? root : root.getParent();
    return parent.resolve("shared").resolve("nab").normalize();
  }

  /**
   * The project root: the nearest directory at or above the working directory that holds {@code
   * benchmarks/} and {@code core/}; the working directory's parent if none does.
   */
  public static Path projectRoot() {
    Path at = Path.of("").toAbsolutePath();
    for (Path p = at; p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("benchmarks")) && Files.isDirectory(p.resolve("core"))) {
        return p;
      }
    }
    return at.getParent() == null ? at : at.getParent();
  }

  /** Whether {@code dir} looks like a NAB corpus (data and the combined windows). */
  public static boolean present(Path dir) {
    return Files.isDirectory(dir.resolve("data"))
        && Files.isRegularFile(dir.resolve("labels").resolve("combined_windows.json"));
  }

  /** Reads the corpus at {@link #locate()}. */
  public static NabCorpus load() {
    return load(locate());
  }

  /**
   * Reads every series the labels file names, with its windows.
   *
   * @throws IllegalStateException if the corpus is missing or a window's limits are not timestamps
   *     of its series
   */
  public static NabCorpus load(Path dir) {
    if (!present(dir)) {
      throw new IllegalStateException(
          "No NAB corpus at "
              + dir
              + " (expected data/ and labels/combined_windows.json); set -D"
              + DIR_PROPERTY
              + "=/path/to/nab");
    }
    try {
      Map<String, List<String[]>> labels =
          parseWindows(Files.readString(dir.resolve("labels/combined_windows.json")));
      List<Series> out = new ArrayList<>();
      for (Map.Entry<String, List<String[]>> e : labels.entrySet()) {
        out.add(readSeries(dir, e.getKey(), e.getValue()));
      }
      return new NabCorpus(dir, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The labels file's entries: path to its windows' [start, end] timestamps, sorted by path. */
  static Map<String, List<String[]>> parseWindows(String json) {
    Map<String, List<String[]>> out = new TreeMap<>();
    Matcher file = FILE_ENTRY.matcher(json);
    List<int[]> starts = new ArrayList<>();
    List<String> names = new ArrayList<>();
    while (file.find()) {
      names.add(file.group(1));
      starts.add(new int[] {file.start(), file.end()});
    }
    for (int i = 0; i < names.size(); i++) {
      int from = starts.get(i)[1];
      int to = i + 1 < names.size() ? starts.get(i + 1)[0] : json.length();
      List<String[]> windows = new ArrayList<>();
      Matcher w = WINDOW.matcher(json.substring(from, to));
      while (w.find()) {
        windows.add(new String[] {w.group(1), w.group(2)});
      }
      out.put(names.get(i), windows);
    }
    return out;
  }

  private static Series readSeries(Path dir, String path, List<String[]> windowLimits)
      throws IOException {
    List<String> ts = new ArrayList<>();
    List<Double> vs = new ArrayList<>();
    try (Stream<String> lines = Files.lines(dir.resolve("data").resolve(path))) {
      lines
          .skip(1)
          .filter(l -> !l.isBlank())
          .forEach(
              l -> {
                int comma = l.indexOf(',');
                ts.add(l.substring(0, comma).trim());
                vs.add(Double.parseDouble(l.substring(comma + 1).trim()));
              });
    }
    long[] seconds = new long[ts.size()];
    for (int i = 0; i < seconds.length; i++) {
      seconds[i] = epochSecond(ts.get(i));
    }
    int[][] windows = new int[windowLimits.size()][];
    for (int w = 0; w < windows.length; w++) {
      long start = epochSecond(windowLimits.get(w)[0]);
      long end = epochSecond(windowLimits.get(w)[1]);
      int first = indexOf(seconds, start, path);
      int last = indexOf(seconds, end, path);
      windows[w] = new int[] {first, last};
    }
    int slash = path.indexOf('/');
    double[] values = new double[vs.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = vs.get(i);
    }
    return new Series(
        path.substring(0, slash),
        path.substring(slash + 1),
        ts.toArray(String[]::new),
        values,
        windows);
  }

  private static int indexOf(long[] seconds, long t, String path) {
    for (int i = 0; i < seconds.length; i++) {
      if (seconds[i] == t) {
        return i;
      }
    }
    throw new IllegalStateException("window limit " + t + " is not a timestamp of " + path);
  }

  /** Seconds since the epoch of {@code yyyy-MM-dd HH:mm:ss[.ffffff]}, read as UTC. */
  static long epochSecond(String timestamp) {
    String t = timestamp.trim();
    int dot = t.indexOf('.');
    if (dot >= 0) {
      t = t.substring(0, dot);
    }
    return LocalDateTime.parse(t.replace(' ', 'T')).toEpochSecond(ZoneOffset.UTC);
  }
}
