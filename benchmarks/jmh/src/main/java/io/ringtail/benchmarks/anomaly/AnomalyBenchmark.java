package io.ringtail.benchmarks.anomaly;

import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one anomaly score: a detector of each method fed a precomputed series (Gaussian noise
 * with a slow daily-like cycle, a spike every 500 points and a level shift every 4,096), one value
 * per call. {@code FLOOR} is an exponentially weighted z-score computed inline: the least a
 * streaming score can cost.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar AnomalyBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AnomalyBenchmark {
  private static final int MASK = (1 << 14) - 1;

  @Param({"ENSEMBLE", "RANGE", "CUSUM", "MEDIAN_MAD", "FLOOR"})
  public String method;

  private final double[] values = series(MASK + 1, 5);
  private AnomalyDetector detector;
  private int next;
  private double mean;
  private double variance = 1;

  /** A series with noise, a cycle, spikes and level shifts, from {@code seed}. */
  static double[] series(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      double level = (i / 4096) % 2 == 0 ? 100 : 130;
      double spike = i % 500 == 499 ? 80 : 0;
      x[i] = level + 10 * Math.sin(i * 2 * Math.PI / 288) + 3 * random.nextGaussian() + spike;
    }
    return x;
  }

  @Setup
  public void setUp() {
    if (!method.equals("FLOOR")) {
      detector =
          AnomalyDetectorConfig.builder()
              .method(AnomalyDetectorConfig.Method.valueOf(method))
              .build()
              .newDetector();
    }
  }

  @Benchmark
  public double score() {
    double x = values[next++ & MASK];
    if (detector != null) {
      return detector.score(x);
    }
    double d = x - mean;
    double z = d / Math.sqrt(variance);
    mean += 0.001 * d;
    variance = 0.999 * (variance + 0.001 * d * d);
    return Math.min(1.0, Math.abs(z) / 6);
  }
}
