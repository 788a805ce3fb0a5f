package io.ringtail.benchmarks.guard;

import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Format;
import io.ringtail.benchmarks.toolkit.Machine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The CI latency guard: a short {@link GuardBenchmark} run that compares each hot path with a floor
 * measured in the same run and fails (exit status 1) when a ratio exceeds its limit. Never an
 * absolute time: a slower or busier machine slows both sides of a ratio alike.
 *
 * <p>How one ratio is estimated: the suite runs in {@value #ROUNDS} rounds, each a fresh fork per
 * benchmark, so the two sides of a pair are measured minutes apart at most. Within a round each
 * side is its fastest iteration (noise only ever adds time); the guarded figure is the median of
 * the rounds' ratios, so one unlucky fork (a worse JIT compilation, a burst of interference) moves
 * nothing. A pair whose figure exceeds its limit is measured again ({@value #ROUNDS} more rounds of
 * its two sides alone) and fails the guard only if that figure exceeds it too: a real regression
 * fails twice, a narrow miss on a busy or different machine does not block a build. Every hot path
 * must also allocate nothing ({@code -prof gc}).
 *
 * <p>Adding a guarded pair is one line in {@link #PAIRS} (plus a {@code @Benchmark} method in
 * {@link GuardBenchmark} if either side is new): the runner measures the union of all sides.
 *
 * <p>Run: {@code benchmarks/guard.sh} (builds the jar first), or {@code java -cp
 * benchmarks/jmh/target/benchmarks.jar io.ringtail.benchmarks.guard.LatencyGuard [--slowdown
 * twice|lock|atomic|allocate] [--out FILE]}. About 75 s on 2 cores. A main; not thread-safe.
 */
public final class LatencyGuard {
  /**
   * One guarded ratio: the time per call of {@code hot} over that of {@code floor} must stay at or
   * below {@code limit}. {@code measured} is the typical guarded figure on the reference machine (2
   * cores, nothing else running) when the limit was set, kept beside it so a reader sees the
   * headroom: each limit sits below twice the measured value, so doubling the hot path's cost fails
   * it, and well above the spread of repeated runs, so noise does not.
   */
  record Pair(
      String what, String hot, String floor, double limit, double measured, boolean firstSeconds) {
    Pair(String what, String hot, String floor, double limit, double measured) {
      this(what, hot, floor, limit, measured, false);
    }

    /** The results' key of a side: first-seconds measurements are kept apart. */
    String key(String method) {
      return firstSeconds ? method + FIRST_SECONDS : method;
    }
  }

  /**
   * Marks a method measured in a fresh JVM's first seconds: no warm-up, {@value
   * #FIRST_SECONDS_ITERATIONS} iterations, the figure their mean (not the fastest), so a read that
   * is slow for seconds after start shows.
   */
  static final String FIRST_SECONDS = " (first seconds)";

  static final int FIRST_SECONDS_ITERATIONS = 8;

  static final List<Pair> PAIRS =
      List.of(
          new Pair(
              "`record(v)` vs HdrHistogram `Recorder.recordValue` + `System.nanoTime()`",
              "record1",
              "recorderAndClock",
              1.8,
              1.27),
          new Pair(
              "`record(v)` per call, 2 threads on one window vs 1 thread",
              "record2",
              "record1",
              1.6,
              1.03),
          new Pair(
              "`KeyedWindows.record(key, v)` (1,000 keys) vs `ConcurrentHashMap.get(key).increment()`",
              "keyedRecord",
              "mapLookup",
              100,
              51),
          new Pair(
              "`snapshot().valueAtPercentile(95)` (100,000 samples) vs copying as many counts,"
                  + " cumulative, and a binary search",
              "snapshotP95",
              "copyAndSearch",
              3.5,
              2.25),
          new Pair(
              "the same in a fresh JVM's first 2 s (no warm-up, mean of the iterations)",
              "snapshotP95",
              "copyAndSearch",
              3.0,
              2.01,
              true));

  /** The hot paths that must allocate nothing per call. */
  static final Set<String> ALLOCATION_FREE = Set.of("record1", "record2");

  /** Far below one object (16 B) per call; above JMH's own per-iteration allocation, amortised. */
  static final double MAX_BYTES_PER_OP = 0.25;

  static final int ROUNDS = 5;
  static final int WARMUP_ITERATIONS = 4;
  static final int MEASUREMENT_ITERATIONS = 4;
  static final TimeValue ITERATION = TimeValue.milliseconds(250);

  private LatencyGuard() {}

  /** The command line. */
  @Command(
      name = "LatencyGuard",
      mixinStandardHelpOptions = true,
      description = "The CI latency guard: hot paths against floors in one short JMH run.")
  static final class Options {
    @Spec CommandSpec spec;

    String slowdown = "none";

    @Option(
        names = "--slowdown",
        description = "Inject a regression: none, twice, lock, atomic or allocate.")
    void slowdown(String value) {
      try {
        GuardBenchmark.RecordPath.of(value);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(),
            "Invalid value for option '--slowdown': '"
                + value
                + "' (none, twice, lock, atomic or allocate)");
      }
      slowdown = value;
    }

    @Option(names = "--out", description = "Where to write the report.")
    Path out = Path.of("benchmarks/target/guard-report.md");
  }

  public static void main(String[] args) throws RunnerException, IOException {
    Options cli = Cli.parse(new Options(), args);
    String slowdown = cli.slowdown;
    Path out = cli.out;
    long started = System.nanoTime();
    String loadAtStart = Machine.loadAverage();

    Set<String> methods = new LinkedHashSet<>();
    for (Pair p : PAIRS) {
      methods.add(p.key(p.hot()));
      methods.add(p.key(p.floor()));
    }
    // method -> worst bytes per call over every round
    Map<String, Double> bytesPerOp = new HashMap<>();
    List<Map<String, Double>> fastest = measure(methods, slowdown, bytesPerOp);

    // A pair over its limit is measured again, alone, before it fails the guard: a real
    // regression fails both times, one unlucky set of forks on a busy machine does not.
    Set<String> again = new LinkedHashSet<>();
    for (Pair p : PAIRS) {
      if (median(ratios(p, fastest)) > p.limit()) {
        again.add(p.key(p.hot()));
        again.add(p.key(p.floor()));
      }
    }
    List<Map<String, Double>> retried =
        again.isEmpty() ? List.of() : measure(again, slowdown, bytesPerOp);

    StringBuilder md = new StringBuilder();
    md.append("| guarded ratio | this run (each round) | limit | typical | status |\n")
        .append("| --- | --- | --- | --- | --- |\n");
    boolean pass = true;
    for (Pair p : PAIRS) {
      double[] ratios = ratios(p, fastest);
      double ratio = median(ratios);
      String figure = Format.fmt("**%.2f** (%s)", ratio, joined(ratios));
      double[] second = ratio <= p.limit() ? new double[0] : ratios(p, retried);
      boolean ok = passes(p.limit(), ratios, second);
      if (second.length > 0) {
        figure += Format.fmt("; measured again: **%.2f** (%s)", median(second), joined(second));
      }
      pass &= ok;
      md.append(
          Format.fmt(
              "| %s | %s | ≤ %.2f | %.2f | %s |%n",
              p.what(), figure, p.limit(), p.measured(), ok ? "pass" : "**FAIL**"));
    }
    md.append('\n')
        .append("| hot path | bytes per call (worst round) | limit | status |\n")
        .append("| --- | --- | --- | --- |\n");
    for (String m : methods) {
      if (ALLOCATION_FREE.contains(m)) {
        double b = bytesPerOp.getOrDefault(m, Double.NaN);
        boolean ok = b < MAX_BYTES_PER_OP;
        pass &= ok;
        md.append(
            Format.fmt(
                "| `%s` | %.3f | < %.2f | %s |%n",
                m, b, MAX_BYTES_PER_OP, ok ? "pass" : "**FAIL**"));
      }
    }
    md.append('\n')
        .append("| benchmark | ns per call, fastest iteration of each round |\n| --- | --- |\n");
    for (String m : methods) {
      List<String> each = new ArrayList<>();
      for (Map<String, Double> round : fastest) {
        each.add(Format.ns(round.get(m)));
      }
      for (Map<String, Double> round : retried) {
        if (round.containsKey(m)) {
          each.add("again " + Format.ns(round.get(m)));
        }
      }
      md.append("| `").append(m).append("` | ").append(String.join(", ", each)).append(" |\n");
    }
    md.append(
        Format.fmt(
            "%nSlowdown injected: %s. %d rounds x 1 fork per benchmark, %d x %d ms warm-up, "
                + "%d x %d ms measurement; load average %s at the start, %s at the end; %d s.%n",
            slowdown,
            ROUNDS,
            WARMUP_ITERATIONS,
            ITERATION.getTime(),
            MEASUREMENT_ITERATIONS,
            ITERATION.getTime(),
            loadAtStart,
            Machine.loadAverage(),
            (System.nanoTime() - started) / 1_000_000_000L));
    md.append(pass ? "\nLatency guard: PASS\n" : "\nLatency guard: FAIL\n");
    String markdown = md.toString();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println(markdown);
    System.out.println("Written to " + out);
    if (!pass) {
      System.exit(1);
    }
  }

  /**
   * Runs {@code methods} in {@value #ROUNDS} rounds of one fork each; returns each round's fastest
   * iteration per method (ns per call) and keeps the worst bytes per call in {@code bytesPerOp}.
   */
  static List<Map<String, Double>> measure(
      Set<String> methods, String slowdown, Map<String, Double> bytesPerOp) throws RunnerException {
    Set<String> warm = new LinkedHashSet<>();
    Set<String> first = new LinkedHashSet<>();
    for (String m : methods) {
      (m.endsWith(FIRST_SECONDS) ? first : warm).add(m.replace(FIRST_SECONDS, ""));
    }
    List<Map<String, Double>> rounds = measure(warm, slowdown, bytesPerOp, false);
    if (!first.isEmpty()) {
      List<Map<String, Double>> cold = measure(first, slowdown, bytesPerOp, true);
      for (int round = 0; round < rounds.size(); round++) {
        Map<String, Double> into = rounds.get(round);
        cold.get(round).forEach((m, t) -> into.put(m + FIRST_SECONDS, t));
      }
    }
    return rounds;
  }

  /**
   * {@code methods} (names without the first-seconds mark) in {@value #ROUNDS} rounds of one fork
   * each: warm (the fastest measured iteration) or in their first seconds (the mean of the first
   * iterations, no warm-up).
   */
  private static List<Map<String, Double>> measure(
      Set<String> methods, String slowdown, Map<String, Double> bytesPerOp, boolean firstSeconds)
      throws RunnerException {
    List<Map<String, Double>> fastest = new ArrayList<>();
    if (methods.isEmpty()) {
      for (int round = 0; round < ROUNDS; round++) {
        fastest.add(new HashMap<>());
      }
      return fastest;
    }
    for (int round = 0; round < ROUNDS; round++) {
      ChainedOptionsBuilder options =
          new OptionsBuilder()
              .forks(1)
              .warmupIterations(firstSeconds ? 0 : WARMUP_ITERATIONS)
              .warmupTime(ITERATION)
              .measurementIterations(
                  firstSeconds ? FIRST_SECONDS_ITERATIONS : MEASUREMENT_ITERATIONS)
              .measurementTime(ITERATION)
              .jvmArgsAppend("-D" + GuardBenchmark.SLOWDOWN_PROPERTY + "=" + slowdown)
              .addProfiler(GCProfiler.class)
              .shouldFailOnError(true);
      for (String m : methods) {
        options.include(GuardBenchmark.class.getName() + "." + m + "$");
      }
      Map<String, Double> times = new HashMap<>();
      for (RunResult r : new Runner(options.build()).run()) {
        String method = r.getParams().getBenchmark();
        method = method.substring(method.lastIndexOf('.') + 1);
        times.put(method, firstSeconds ? meanIteration(r) : fastestIteration(r));
        if (!firstSeconds) {
          Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
          bytesPerOp.merge(method, alloc == null ? Double.NaN : alloc.getScore(), Math::max);
        }
      }
      fastest.add(times);
    }
    return fastest;
  }

  /**
   * A pair passes when the median of its rounds' ratios is within the limit, or, when it is not,
   * the median of the rounds measured again is.
   */
  static boolean passes(double limit, double[] first, double[] again) {
    return median(first) <= limit || (again.length > 0 && median(again) <= limit);
  }

  /** The pair's ratio in each round. */
  static double[] ratios(Pair p, List<Map<String, Double>> rounds) {
    double[] ratios = new double[rounds.size()];
    for (int round = 0; round < ratios.length; round++) {
      ratios[round] =
          rounds.get(round).get(p.key(p.hot())) / rounds.get(round).get(p.key(p.floor()));
    }
    return ratios;
  }

  private static String joined(double[] ratios) {
    List<String> each = new ArrayList<>();
    for (double r : ratios) {
      each.add(Format.fmt("%.2f", r));
    }
    return String.join(", ", each);
  }

  static double meanIteration(RunResult r) {
    double sum = 0;
    int n = 0;
    for (BenchmarkResult b : r.getBenchmarkResults()) {
      for (IterationResult i : b.getIterationResults()) {
        sum += i.getPrimaryResult().getScore();
        n++;
      }
    }
    return sum / n;
  }

  static double fastestIteration(RunResult r) {
    double min = Double.POSITIVE_INFINITY;
    for (BenchmarkResult b : r.getBenchmarkResults()) {
      for (IterationResult i : b.getIterationResults()) {
        min = Math.min(min, i.getPrimaryResult().getScore());
      }
    }
    return min;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
