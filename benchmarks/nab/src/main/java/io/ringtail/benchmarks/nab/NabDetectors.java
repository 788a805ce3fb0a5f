package io.ringtail.benchmarks.nab;

import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.anomaly.AnomalyDetectorConfig.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The detectors the NAB runner knows by name, each a supplier of a fresh detector per series: the
 * library's methods at their defaults, and the benchmark's reference detectors ({@code null}: a
 * constant score; {@code random}: uniform scores from a fixed seed; {@code perfect}: 1 at the first
 * point of each window, which only a scorer test can build, since it reads the labels).
 *
 * <p>Stateless and thread-safe; each call builds fresh detectors and score arrays.
 */
public final class NabDetectors {
  private NabDetectors() {}

  /** The library's detectors by NAB name, best first. */
  public static Map<String, Supplier<AnomalyDetector>> library() {
    Map<String, Supplier<AnomalyDetector>> out = new LinkedHashMap<>();
    for (Method m : List.of(Method.ENSEMBLE, Method.RANGE, Method.CUSUM, Method.MEDIAN_MAD)) {
      AnomalyDetectorConfig config = AnomalyDetectorConfig.builder().method(m).build();
      out.put("ringtail_" + m.name().toLowerCase(), config::newDetector);
    }
    return out;
  }

  /** Runs a fresh detector from {@code detectors} over each series, in order. */
  public static List<double[]> run(NabCorpus corpus, Supplier<AnomalyDetector> detectors) {
    return perSeries(
        corpus,
        (s, scores) -> {
          AnomalyDetector d = detectors.get();
          for (int i = 0; i < scores.length; i++) {
            scores[i] = d.score(s.values()[i]);
          }
        });
  }

  /** A constant 0.5 for every point, as NAB's null detector gives. */
  public static List<double[]> constant(NabCorpus corpus) {
    return perSeries(corpus, (s, scores) -> Arrays.fill(scores, 0.5));
  }

  /**
   * Uniform scores in [0, 1), as NAB's random detector gives: like it, each series starts from the
   * same {@code seed}.
   */
  public static List<double[]> random(NabCorpus corpus, long seed) {
    return perSeries(
        corpus,
        (s, scores) -> {
          SplittableRandom random = new SplittableRandom(seed);
          for (int i = 0; i < scores.length; i++) {
            scores[i] = random.nextDouble();
          }
        });
  }

  /** 1 at the first point of every window, 0 elsewhere: the earliest possible detections. */
  public static List<double[]> atWindowStarts(NabCorpus corpus) {
    return perSeries(
        corpus,
        (s, scores) -> {
          for (int[] w : s.windows()) {
            scores[w[0]] = 1.0;
          }
        });
  }

  /** One score array per series, in order, filled by {@code fill}. */
  private static List<double[]> perSeries(
      NabCorpus corpus, BiConsumer<NabCorpus.Series, double[]> fill) {
    List<double[]> out = new ArrayList<>();
    for (NabCorpus.Series s : corpus.series()) {
      double[] scores = new double[s.values().length];
      fill.accept(s, scores);
      out.add(scores);
    }
    return out;
  }
}
