package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.window.Contender;
import io.ringtail.benchmarks.window.KeyedBenchmark;
import io.ringtail.benchmarks.window.ReadBenchmark;
import io.ringtail.benchmarks.window.RecordBenchmark;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

/**
 * The short suite's JMH runs (record, P95 read, keyed; one fork, {@code -prof gc}) and what they
 * measured: every measurement iteration's score, so that a report can take the median or the
 * fastest (an {@link Estimator}), and the bytes allocated per operation. Not thread-safe; filled by
 * one thread, then read.
 */
final class ShortSuite {
  static final int[] READ_SIZES = {1_000, 100_000, 1_000_000};
  static final int[] KEYED_KEYS = {1_000, 100_000};

  /** Record iteration scores (ns) by kind and thread count. */
  final Map<Contender.Kind, Map<Integer, double[]>> record = new EnumMap<>(Contender.Kind.class);

  /** Bytes allocated per record at one thread, by kind. */
  final Map<Contender.Kind, Double> recordAlloc = new EnumMap<>(Contender.Kind.class);

  /** P95 read iteration scores (µs) by kind and window size. */
  final Map<Contender.Kind, Map<Integer, double[]>> read = new EnumMap<>(Contender.Kind.class);

  /** Bytes allocated per P95 read by kind and window size. */
  final Map<Contender.Kind, Map<Integer, Double>> readAlloc = new EnumMap<>(Contender.Kind.class);

  /** Keyed iteration scores (ns) and B/op by "method keys threads". */
  final Map<String, double[]> keyed = new HashMap<>();

  /** Keyed bytes allocated per operation by "method keys threads". */
  final Map<String, Double> keyedAlloc = new HashMap<>();

  private ChainedOptionsBuilder options(int iterations) {
    return new OptionsBuilder()
        .forks(1)
        .warmupIterations(3)
        .warmupTime(TimeValue.milliseconds(500))
        .measurementIterations(iterations)
        .measurementTime(TimeValue.milliseconds(500))
        .shouldFailOnError(true);
  }

  void runRecord(int iterations, int threads) throws RunnerException {
    for (int t : new int[] {1, threads}) {
      Collection<RunResult> results =
          new Runner(
                  options(iterations)
                      .include(RecordBenchmark.class.getName() + ".record1$")
                      .threads(t)
                      .addProfiler(GCProfiler.class)
                      .build())
              .run();
      for (RunResult r : results) {
        Contender.Kind kind = Contender.Kind.valueOf(r.getParams().getParam("contender"));
        Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
        record.computeIfAbsent(kind, k -> new HashMap<>()).put(t, iterationScores(r));
        if (t == 1) {
          recordAlloc.put(kind, alloc == null ? Double.NaN : alloc.getScore());
        }
      }
    }
  }

  void runRead(int iterations) throws RunnerException {
    String[] sizes = new String[READ_SIZES.length];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = Integer.toString(READ_SIZES[i]);
    }
    Collection<RunResult> results =
        new Runner(
                options(iterations)
                    .include(ReadBenchmark.class.getName() + ".p95$")
                    .param("samples", sizes)
                    .addProfiler(GCProfiler.class)
                    .build())
            .run();
    for (RunResult r : results) {
      Contender.Kind kind = Contender.Kind.valueOf(r.getParams().getParam("contender"));
      int samples = Integer.parseInt(r.getParams().getParam("samples"));
      read.computeIfAbsent(kind, k -> new HashMap<>()).put(samples, iterationScores(r));
      Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
      readAlloc
          .computeIfAbsent(kind, k -> new HashMap<>())
          .put(samples, alloc == null ? Double.NaN : alloc.getScore());
    }
  }

  void runKeyed(int iterations, int threads) throws RunnerException {
    for (int t : new int[] {1, threads}) {
      Collection<RunResult> results =
          new Runner(
                  options(iterations)
                      .include(KeyedBenchmark.class.getName() + ".")
                      .threads(t)
                      .param(
                          "keys",
                          Arrays.stream(KEYED_KEYS)
                              .mapToObj(Integer::toString)
                              .toArray(String[]::new))
                      .addProfiler(GCProfiler.class)
                      .build())
              .run();
      for (RunResult r : results) {
        String benchmark = r.getParams().getBenchmark();
        String id =
            benchmark.substring(benchmark.lastIndexOf('.') + 1)
                + " "
                + r.getParams().getParam("keys")
                + " "
                + t;
        keyed.put(id, iterationScores(r));
        Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
        keyedAlloc.put(id, alloc == null ? Double.NaN : alloc.getScore());
      }
    }
  }

  static double[] iterationScores(RunResult r) {
    List<Double> scores = new ArrayList<>();
    for (BenchmarkResult b : r.getBenchmarkResults()) {
      for (IterationResult i : b.getIterationResults()) {
        scores.add(i.getPrimaryResult().getScore());
      }
    }
    return scores.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The record figure of {@code kind} at {@code threads} threads, in ns, or NaN if not run. */
  double recordNs(Contender.Kind kind, int threads, Estimator estimator) {
    Map<Integer, double[]> m = record.get(kind);
    return m == null || !m.containsKey(threads) ? Double.NaN : estimator.of(m.get(threads));
  }

  /** The P95 read figure of {@code kind} at {@code samples} samples, in µs, or NaN if not run. */
  double readMicros(Contender.Kind kind, int samples, Estimator estimator) {
    Map<Integer, double[]> m = read.get(kind);
    return m == null || !m.containsKey(samples) ? Double.NaN : estimator.of(m.get(samples));
  }
}
