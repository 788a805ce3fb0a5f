package io.ringtail.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One recording thread's timed calls, per phase and side: the time spent inside them and each call
 * over 1 ms, kept in arrays sized up front so that keeping them allocates nothing. Afterwards each
 * slow call is matched against the JVM's own safepoint log ({@code -Xlog:safepoint:file=...:tn},
 * whose {@code tn} decoration is {@link System#nanoTime()}): a call that overlapped a JVM-wide
 * pause (a collection or another safepoint operation) waited for the JVM, not for its own code. Not
 * thread-safe: one instance per thread.
 */
final class SlowRecords {
  static final long SLOW_NANOS = 1_000_000;
  private static final Pattern SAFEPOINT =
      Pattern.compile("^\\[(\\d+)ns\\] Safepoint \"[^\"]+\".*Total: (\\d+) ns");

  private final int sides;
  private final long[] nanosInside;
  private final long[] slowCount;
  private final long[] starts;
  private final long[] ends;
  private final int[] where;
  private int kept;

  SlowRecords(int phases, int sides, int capacity) {
    this.sides = sides;
    this.nanosInside = new long[phases * sides];
    this.slowCount = new long[phases * sides];
    this.starts = new long[capacity];
    this.ends = new long[capacity];
    this.where = new int[capacity];
  }

  /** One timed call of {@code side} in {@code phase}, from {@code start} to {@code end}. */
  void add(int phase, int side, long start, long end) {
    int at = phase * sides + side;
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
    int at = phase * sides + side;
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
}
