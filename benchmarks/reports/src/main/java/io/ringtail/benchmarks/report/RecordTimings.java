package io.ringtail.benchmarks.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The record tail of {@link KeyedFleetReport}: one recording thread's timed calls, per phase and
 * side (the fleet window's, the in-process window's), as an HdrHistogram, the time spent inside
 * them, and each call over 1 ms, kept in arrays sized up front so that keeping them allocates
 * nothing. Afterwards each slow call is matched against the JVM's own safepoint log ({@code
 * -Xlog:safepoint:file=...:tn}, whose {@code tn} decoration is {@link System#nanoTime()}): a call
 * that overlapped a JVM-wide pause (a collection or another safepoint operation) waited for the
 * JVM, not for its own code. A child prints every thread's figures as {@code TAIL} and {@code SLOW}
 * lines ({@link #print}); the report adds them up and formats them ({@link Tally}). Not
 * thread-safe: one instance per thread.
 */
final class RecordTimings {
  static final int FLEET = 0;
  static final int LOCAL = 1;
  static final long SLOW_NANOS = 1_000_000;
  private static final String[] SIDES = {"fleet", "local"};
  private static final long HIGHEST = 3_600_000_000_000L;
  private static final Pattern SAFEPOINT =
      Pattern.compile("^\\[(\\d+)ns\\] Safepoint \"[^\"]+\".*Total: (\\d+) ns");

  private final Histogram[] histograms;
  private final long[] nanosInside;
  private final long[] slowCount;
  private final long[] starts;
  private final long[] ends;
  private final int[] where;
  private int kept;

  RecordTimings(int phases, int capacity) {
    int cells = phases * SIDES.length;
    this.histograms = new Histogram[cells];
    for (int i = 0; i < cells; i++) {
      histograms[i] = new Histogram(HIGHEST, 3);
    }
    this.nanosInside = new long[cells];
    this.slowCount = new long[cells];
    this.starts = new long[capacity];
    this.ends = new long[capacity];
    this.where = new int[capacity];
  }

  /** One timed call of {@code side} in {@code phase}, from {@code start} to {@code end}. */
  void add(int phase, int side, long start, long end) {
    int at = phase * SIDES.length + side;
    histograms[at].recordValue(end - start);
    nanosInside[at] += end - start;
    if (end - start > SLOW_NANOS) {
      slowCount[at]++;
      if (kept < starts.length) {
        starts[kept] = start;
        ends[kept] = end;
        where[kept++] = at;
      }
    }
  }

  /**
   * Prints every thread's figures, per phase and side: {@code TAIL phase side base64} (the merged
   * histogram, compressed) and {@code SLOW phase side} with the nanoseconds inside the calls, the
   * calls over 1 ms, those of them that overlapped a pause of {@code safepointLog} (if any), those
   * not classified (past the capacity), and the pauses in the log.
   */
  static void print(RecordTimings[] threads, int phases, Path safepointLog, PrintStream out)
      throws IOException {
    List<long[]> pauses = safepointLog == null ? List.of() : pauses(safepointLog);
    for (int phase = 0; phase < phases; phase++) {
      for (int side = 0; side < SIDES.length; side++) {
        Histogram merged = new Histogram(HIGHEST, 3);
        long[] figures = new long[4];
        for (RecordTimings t : threads) {
          merged.add(t.histograms[phase * SIDES.length + side]);
          t.addTo(phase, side, pauses, figures);
        }
        ByteBuffer buffer = ByteBuffer.allocate(merged.getNeededByteBufferCapacity());
        byte[] bytes = new byte[merged.encodeIntoCompressedByteBuffer(buffer)];
        buffer.flip();
        buffer.get(bytes);
        String cell = phase + " " + SIDES[side];
        out.println("TAIL " + cell + " " + Base64.getEncoder().encodeToString(bytes));
        out.println(
            String.format(
                "SLOW %s %d %d %d %d %d",
                cell, figures[0], figures[1], figures[2], figures[3], pauses.size()));
      }
    }
  }

  /** JVM-wide pauses as {@code [start, end]} pairs of {@link System#nanoTime()} readings. */
  static List<long[]> pauses(Path safepointLog) throws IOException {
    List<long[]> out = new ArrayList<>();
    if (!Files.exists(safepointLog)) {
      return out;
    }
    for (String line : Files.readAllLines(safepointLog)) {
      Matcher m = SAFEPOINT.matcher(line);
      if (m.find()) {
        long end = Long.parseLong(m.group(1));
        out.add(new long[] {end - Long.parseLong(m.group(2)), end});
      }
    }
    return out;
  }

  /**
   * Adds this thread's figures for {@code phase} and {@code side} into {@code into}: time inside
   * the calls, calls over 1 ms, those of them that overlapped one of {@code pauses}, and slow calls
   * not kept (past the capacity), unclassified.
   */
  void addTo(int phase, int side, List<long[]> pauses, long[] into) {
    int at = phase * SIDES.length + side;
    into[0] += nanosInside[at];
    into[1] += slowCount[at];
    long classified = 0;
    for (int i = 0; i < kept; i++) {
      if (where[i] != at) {
        continue;
      }
      classified++;
      for (long[] p : pauses) {
        if (p[0] < ends[i] && p[1] > starts[i]) {
          into[2]++;
          break;
        }
      }
    }
    into[3] += slowCount[at] - classified;
  }

  /**
   * The chance that at least {@code a} of {@code n} events land on one side when each lands on
   * either with probability one half: the one-sided sign test of a split {@code a} against {@code n
   * - a}.
   */
  static double atLeast(long a, long n) {
    if (a <= 0) {
      return 1;
    }
    double p = 0;
    for (long k = a; k <= n; k++) {
      p += Math.exp(logChoose(n, k) - n * Math.log(2));
    }
    return Math.min(1, p);
  }

  private static double logChoose(long n, long k) {
    double s = 0;
    for (long i = 1; i <= k; i++) {
      s += Math.log(n - k + i) - Math.log(i);
    }
    return s;
  }

  /** The report's side: adds up the children's {@code TAIL} and {@code SLOW} lines. */
  static final class Tally {
    static final String HEADER =
        "| processes x windows | Redis | window | p99 | p99.9 | p99.99 | max | records over 1 ms |"
            + " of them during a JVM-wide pause | time inside the timed calls | fleet window's share"
            + " of the records over 1 ms (one-sided sign test p) |\n"
            + "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";

    private final Map<String, Histogram> tails = new HashMap<>();
    private final Map<String, long[]> slow = new HashMap<>();

    /** Takes a child's line split at spaces; returns false if it is neither kind. */
    boolean accept(String[] f) throws DataFormatException {
      String cell = f.length > 2 ? f[1] + " " + f[2] : "";
      switch (f[0]) {
        case "TAIL" -> {
          Histogram h =
              Histogram.decodeFromCompressedByteBuffer(
                  ByteBuffer.wrap(Base64.getDecoder().decode(f[3])), 0);
          tails.merge(
              cell,
              h,
              (a, b) -> {
                a.add(b);
                return a;
              });
          return true;
        }
        case "SLOW" -> {
          long[] figures = slow.computeIfAbsent(cell, k -> new long[5]);
          for (int i = 0; i < 5; i++) {
            figures[i] += Long.parseLong(f[i + 3]);
          }
          return true;
        }
        default -> {
          return false;
        }
      }
    }

    /**
     * Appends {@link #HEADER}'s rows for {@code phase}, labelled {@code row} and {@code redis}: the
     * in-process window, then the fleet window with the sign test of its share.
     */
    void appendRows(StringBuilder out, int phase, String row, String redis) {
      long fleetSlow = slow.get(phase + " fleet")[1];
      long localSlow = slow.get(phase + " local")[1];
      for (int side : new int[] {LOCAL, FLEET}) {
        Histogram h = tails.get(phase + " " + SIDES[side]);
        long[] s = slow.get(phase + " " + SIDES[side]);
        out.append(
            String.format(
                "| %s | %s | %s | %.2f us | %.2f us | %.2f us | %.2f ms | %d of %,d | %s |"
                    + " %.2f s | %s |%n",
                row,
                redis,
                side == LOCAL ? "in-process KeyedWindows" : "keyed fleet window",
                h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3,
                h.getValueAtPercentile(99.99) / 1e3,
                h.getMaxValue() / 1e6,
                s[1],
                h.getTotalCount(),
                s[4] == 0
                    ? "no safepoint log"
                    : s[3] == 0 ? Long.toString(s[2]) : s[2] + " (" + s[3] + " unclassified)",
                s[0] / 1e9,
                side == LOCAL
                    ? ""
                    : String.format(
                        "%d of %d, p = %.2g",
                        fleetSlow,
                        fleetSlow + localSlow,
                        atLeast(fleetSlow, fleetSlow + localSlow))));
      }
    }
  }
}
