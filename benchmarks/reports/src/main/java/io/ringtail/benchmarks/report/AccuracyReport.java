package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import io.ringtail.benchmarks.toolkit.SimClock;
import io.ringtail.benchmarks.window.Contender;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * P95 accuracy around a step change, on an injected clock. A stream of 1,000 samples/s (log-normal,
 * median 1 ms, sigma 0.5) runs for 360 s; from 120 s to 240 s every latency is 4x. Every 100 ms
 * each contender's P95 is compared with the exact nearest-rank P95 of the samples timed in the last
 * 60 s (a naive sort of everything in that interval).
 *
 * <ul>
 *   <li><b>Error</b>: {@code |contender - exact| / exact}, once per second (at each second + 0.5 s,
 *       mid-bucket) from 60 s on; median and worst. The worst over every 100 ms instant is kept
 *       too: just after a rotation a bucketed window covers least (for Ringtail, length minus one
 *       bucket width).
 *   <li><b>Lag</b>: for each step, the midpoint between the exact P95 just before it and at the end
 *       of the next phase; lag is when the contender crosses that midpoint minus when the exact P95
 *       does (negative: early), resolved to 100 ms.
 * </ul>
 *
 * <p>A single-threaded command-line tool; each measurement builds its own contenders and clock.
 *
 * <p>Run: {@code java -cp benchmarks/reports/target/reports.jar
 * io.ringtail.benchmarks.report.AccuracyReport}
 */
public final class AccuracyReport {
  static final int RATE_PER_SECOND = 1_000;
  static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  static final long WINDOW = 60 * SECOND;
  static final long STEP_UP = 120 * SECOND;
  static final long STEP_DOWN = 240 * SECOND;
  static final long END = 360 * SECOND;
  static final long EVERY = SECOND / 10;
  static final double STEP_FACTOR = 4.0;

  static final Contender.Kind[] KINDS = {
    Contender.Kind.RINGTAIL,
    Contender.Kind.RINGTAIL_12_BUCKETS,
    Contender.Kind.RINGTAIL_COMPACT,
    Contender.Kind.MICROMETER,
    Contender.Kind.MICROMETER_2_DIGITS,
    Contender.Kind.DROPWIZARD,
    Contender.Kind.ROLLING_METRICS
  };

  /** One contender's accuracy figures; lags are in seconds, NaN when it never crossed. */
  record Row(
      Contender.Kind kind,
      double medianError,
      double worstError,
      double worstErrorAnyPhase,
      double lagUpSeconds,
      double lagDownSeconds) {}

  private AccuracyReport() {}

  static List<Row> measure() {
    SimClock clock = new SimClock();
    Map<Contender.Kind, Contender> contenders = new LinkedHashMap<>();
    for (Contender.Kind kind : KINDS) {
      contenders.put(kind, Contender.create(kind, clock));
    }
    ExactModel exact = new ExactModel();
    int evaluations = (int) (END / EVERY);
    long[] evalTimes = new long[evaluations];
    double[] exactP95 = new double[evaluations];
    Map<Contender.Kind, double[]> seen = new LinkedHashMap<>();
    contenders.keySet().forEach(k -> seen.put(k, new double[evaluations]));

    SplittableRandom random = new SplittableRandom(7);
    double mu = Math.log(1_000_000);
    long sampleStep = SECOND / RATE_PER_SECOND;
    long t = 0;
    for (int e = 0; e < evaluations; e++) {
      long evalAt = (e + 1) * EVERY;
      for (; t <= evalAt; t += sampleStep) {
        double factor = t >= STEP_UP && t < STEP_DOWN ? STEP_FACTOR : 1.0;
        long value = Latencies.clamp(factor * Math.exp(mu + 0.5 * Latencies.gaussian(random)));
        clock.set(t);
        exact.add(t, value);
        for (Contender c : contenders.values()) {
          c.record(value);
        }
      }
      clock.set(evalAt);
      evalTimes[e] = evalAt;
      exactP95[e] = exact.p95(evalAt);
      for (Map.Entry<Contender.Kind, Contender> c : contenders.entrySet()) {
        seen.get(c.getKey())[e] = c.getValue().p95();
      }
    }

    double beforeUp = exactAt(evalTimes, exactP95, STEP_UP - SECOND / 2);
    double highSteady = exactAt(evalTimes, exactP95, STEP_DOWN - SECOND / 2);
    double lowSteady = exactAt(evalTimes, exactP95, END - SECOND / 2);
    double midUp = (beforeUp + highSteady) / 2;
    double midDown = (highSteady + lowSteady) / 2;
    double exactUp = crossing(evalTimes, exactP95, STEP_UP, midUp, true);
    double exactDown = crossing(evalTimes, exactP95, STEP_DOWN, midDown, false);

    List<Row> rows = new ArrayList<>();
    for (Map.Entry<Contender.Kind, double[]> s : seen.entrySet()) {
      double[] values = s.getValue();
      List<Double> errors = new ArrayList<>();
      double worstAnyPhase = 0;
      for (int e = 0; e < evaluations; e++) {
        if (evalTimes[e] >= WINDOW) {
          double error = Math.abs(values[e] - exactP95[e]) / exactP95[e];
          worstAnyPhase = Math.max(worstAnyPhase, error);
          if (evalTimes[e] % SECOND == SECOND / 2) {
            errors.add(error);
          }
        }
      }
      double[] sorted = errors.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double median = sorted[sorted.length / 2];
      double worst = sorted[sorted.length - 1];
      double up = crossing(evalTimes, values, STEP_UP, midUp, true) - exactUp;
      double down = crossing(evalTimes, values, STEP_DOWN, midDown, false) - exactDown;
      rows.add(new Row(s.getKey(), median, worst, worstAnyPhase, up, down));
    }
    return rows;
  }

  private static double exactAt(long[] times, double[] values, long at) {
    int i = Arrays.binarySearch(times, at);
    if (i < 0) {
      throw new IllegalStateException("no evaluation at " + at);
    }
    return values[i];
  }

  /**
   * Seconds at which {@code values} first crosses {@code mid} at or after {@code from}; NaN if
   * never.
   */
  private static double crossing(
      long[] times, double[] values, long from, double mid, boolean upward) {
    for (int e = 0; e < times.length; e++) {
      if (times[e] >= from && (upward ? values[e] >= mid : values[e] <= mid)) {
        return (double) times[e] / SECOND;
      }
    }
    return Double.NaN;
  }

  /** The naive exact reference: every sample of the last 60 s, sorted on each query. */
  static final class ExactModel {
    private long[] times = new long[1024];
    private long[] values = new long[1024];
    private int head;
    private int tail;

    void add(long time, long value) {
      if (tail == times.length) {
        compact();
      }
      times[tail] = time;
      values[tail++] = value;
    }

    /** Nearest-rank P95 of samples timed in {@code (now - 60 s, now]}. */
    double p95(long now) {
      while (head < tail && times[head] <= now - WINDOW) {
        head++;
      }
      int n = tail - head;
      if (n == 0) {
        return Double.NaN;
      }
      long[] sorted = Arrays.copyOfRange(values, head, tail);
      Arrays.sort(sorted);
      int rank = (int) Math.ceil(0.95 * n);
      return sorted[Math.max(rank, 1) - 1];
    }

    private void compact() {
      int n = tail - head;
      long[] t = times;
      long[] v = values;
      if (n * 2 > times.length) {
        t = new long[times.length * 2];
        v = new long[times.length * 2];
      }
      System.arraycopy(times, head, t, 0, n);
      System.arraycopy(values, head, v, 0, n);
      times = t;
      values = v;
      head = 0;
      tail = n;
    }
  }

  /** The command line: no flags but {@code --help}. */
  @Command(
      name = "AccuracyReport",
      description = "P95 error and lag of every contender on a simulated load with phase changes.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.printing();
  }

  public static void main(String[] args) {
    Cli.parse(new Options(), args);
    for (Row row : measure()) {
      System.out.printf(
          "%-40s median %6.2f %%  worst %7.2f %% (any phase %7.2f %%)  lag up %+6.1f s  down %+6.1f s%n",
          row.kind().label,
          100 * row.medianError(),
          100 * row.worstError(),
          100 * row.worstErrorAnyPhase(),
          row.lagUpSeconds(),
          row.lagDownSeconds());
    }
  }
}
