package io.ringtail.benchmarks.nab;

import io.ringtail.anomaly.AnomalyDetector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Held-out NAB scores of the {@code ENSEMBLE} detector: the detector's constants and the alarm
 * threshold are tuned on part of the corpus and scored, fixed, on the rest.
 *
 * <p>Two splits: {@value #FOLDS}-fold by file, stratified by category (each category's files
 * shuffled with a fixed seed and dealt round the folds), and leave-one-category-out. In each fold
 * the tuning is the one the shipped constants came from, redone on the training files only: a
 * coordinate search from the shipped values over each constant's neighbours ({@link #GRID}, the
 * values of the docs' sensitivity sweep), two passes, keeping a change only if it raises the
 * training files' standard score ({@link Rule#PLAIN}), or with {@code --rule=consistent} the
 * standard score of each half of the training files, split by file and stratified by category and
 * scored on its own ({@link Rule#CONSISTENT}); then the threshold of each profile is the one the
 * NAB sweep picks on the training files. The held-out files are scored at those constants and
 * thresholds, normalized over the held-out files (null 0, perfect 100), and pooled: every file
 * scored by the fold that held it out, normalized over the whole corpus. The shipped constants are
 * scored the same way (thresholds from the training files) beside the tuned ones.
 *
 * <p>A program: run by {@code benchmarks/nab-cv.sh}. Its static methods keep no state.
 */
public final class NabCrossValidation {
  static final int FOLDS = 5;
  static final long SEED = 38;
  static final int PASSES = 2;

  /** When the search keeps a change of a constant. */
  enum Rule {
    /** When it raises the training files' standard score. */
    PLAIN,
    /**
     * When it raises the standard score of each half of the training files (split by file,
     * stratified by category), each half scored on its own: a change that helps one half and not
     * the other is taken for noise.
     */
    CONSISTENT
  }

  /** Each constant's alternatives to the shipped value, as the docs' sensitivity sweep moves it. */
  static final Map<String, double[]> GRID = grid();

  private NabCrossValidation() {}

  private static Map<String, double[]> grid() {
    Map<String, double[]> g = new LinkedHashMap<>();
    g.put("alarm", new double[] {0.6, 0.9});
    g.put("quietPoints", new double[] {50, 200});
    g.put("rangeRelax", new double[] {10_000, 40_000});
    g.put("rangeScale", new double[] {2, 5});
    g.put("rangeLevel", new double[] {0.3, 0.7});
    g.put("medianRelax", new double[] {10_000, 40_000});
    g.put("medianScale", new double[] {5, 12});
    g.put("medianLevel", new double[] {0.5, 0.52});
    g.put("cusumHorizon", new double[] {2_000, 5_000});
    g.put("cusumScale", new double[] {3, 7});
    g.put("cusumSlack", new double[] {0.3, 0.7});
    g.put("cusumLevel", new double[] {0.9999, 0.999999});
    g.put("history", new double[] {32, 96});
    g.put("warmUp", new double[] {100, 200});
    return g;
  }

  /** One split of the corpus: its name and which files it holds out. */
  record Fold(String name, Predicate<NabCorpus.Series> heldOut) {}

  /** One fold's outcome. */
  record Result(
      Fold fold,
      int heldOutFiles,
      int heldOutWindows,
      Map<String, Double> tuned,
      double trainTuned,
      double trainShipped,
      List<NabScorer.ProfileScore> heldOutTuned,
      List<NabScorer.ProfileScore> heldOutShipped,
      List<NabScorer.ProfileScore> inSample) {}

  public static void main(String[] args) {
    Rule rule = Rule.PLAIN;
    for (String a : args) {
      if (a.startsWith("--rule=")) {
        rule = Rule.valueOf(a.substring("--rule=".length()).toUpperCase(Locale.ROOT));
      } else {
        throw new IllegalArgumentException("usage: NabCrossValidation [--rule=plain|consistent]");
      }
    }
    NabCorpus corpus = NabCorpus.load();
    List<Fold> folds = new ArrayList<>(stratifiedFolds(corpus, FOLDS, SEED));
    folds.addAll(categoryFolds(corpus));
    NabScorer whole = NabScorer.withCorpusProfiles(corpus);
    Map<String, Double> shipped = NabTunings.defaults();
    List<double[]> shippedScores = NabDetectors.run(corpus, NabTunings.ensemble(shipped));
    List<NabScorer.ProfileScore> inSample = whole.score(shippedScores);
    System.out.printf(
        Locale.ROOT,
        "NAB corpus %s: %d series, %d windows. In-sample (shipped constants, threshold over the"
            + " corpus): %.2f / %.2f / %.2f%n",
        corpus.dir(),
        corpus.series().size(),
        corpus.windowCount(),
        inSample.get(0).normalized(),
        inSample.get(1).normalized(),
        inSample.get(2).normalized());
    List<Result> results = new ArrayList<>();
    for (Fold f : folds) {
      Result r = run(corpus, f, whole, inSample, rule);
      results.add(r);
      System.out.println(line(r, shipped));
    }
    System.out.print(report(corpus, whole, results, shipped));
    Map<String, Double> onAll = search(corpus, whole, new HashMap<>(), rule);
    System.out.printf(
        Locale.ROOT,
        "%nThe same search on all files (in-sample): %s, standard %.2f (shipped %.2f)%n",
        changes(onAll, shipped),
        trainScore(corpus, whole, onAll, new HashMap<>()),
        inSample.get(0).normalized());
  }

  /**
   * The coordinate search from the shipped values: {@link #PASSES} passes over {@link #GRID},
   * keeping a change only if {@code rule} says so.
   */
  static Map<String, Double> search(
      NabCorpus train, NabScorer trainScorer, Map<Map<String, Double>, Double> seen, Rule rule) {
    List<Fold> halves = stratifiedFolds(train, 2, SEED);
    List<NabCorpus> parts = new ArrayList<>();
    List<NabScorer> partScorers = new ArrayList<>();
    for (Fold h : halves) {
      NabCorpus part = train.subset(h.heldOut());
      parts.add(part);
      partScorers.add(NabScorer.withCorpusProfiles(part));
    }
    Map<Map<String, Double>, double[]> seenHalves = new HashMap<>();
    Map<String, Double> shipped = NabTunings.defaults();
    Map<String, Double> best = shipped;
    double bestScore = trainScore(train, trainScorer, best, seen);
    double[] bestHalves =
        rule == Rule.CONSISTENT ? halvesScore(parts, partScorers, best, seenHalves) : null;
    for (int pass = 0; pass < PASSES; pass++) {
      for (Map.Entry<String, double[]> e : GRID.entrySet()) {
        List<Double> values = new ArrayList<>();
        values.add(shipped.get(e.getKey()));
        for (double v : e.getValue()) {
          values.add(v);
        }
        for (double v : values) {
          Map<String, Double> candidate = new LinkedHashMap<>(best);
          candidate.put(e.getKey(), v);
          double s = trainScore(train, trainScorer, candidate, seen);
          if (!(s > bestScore)) {
            continue;
          }
          if (rule == Rule.CONSISTENT) {
            double[] h = halvesScore(parts, partScorers, candidate, seenHalves);
            if (!(h[0] > bestHalves[0] && h[1] > bestHalves[1])) {
              continue;
            }
            bestHalves = h;
          }
          bestScore = s;
          best = candidate;
        }
      }
    }
    return best;
  }

  /** The standard score of each half of the training files at {@code values}, each on its own. */
  private static double[] halvesScore(
      List<NabCorpus> parts,
      List<NabScorer> scorers,
      Map<String, Double> values,
      Map<Map<String, Double>, double[]> seen) {
    double[] known = seen.get(values);
    if (known != null) {
      return known;
    }
    double[] s = new double[parts.size()];
    for (int i = 0; i < s.length; i++) {
      s[i] =
          scorers
              .get(i)
              .score(NabDetectors.run(parts.get(i), NabTunings.ensemble(values)))
              .get(0)
              .normalized();
    }
    seen.put(Map.copyOf(values), s);
    return s;
  }

  /** {@code k} folds by file, stratified by category. */
  static List<Fold> stratifiedFolds(NabCorpus corpus, int k, long seed) {
    Map<String, List<String>> byCategory = new TreeMap<>();
    for (NabCorpus.Series s : corpus.series()) {
      byCategory.computeIfAbsent(s.category(), c -> new ArrayList<>()).add(s.path());
    }
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Integer> foldOf = new HashMap<>();
    int next = 0;
    for (List<String> paths : byCategory.values()) {
      for (int i = paths.size() - 1; i > 0; i--) { // Fisher-Yates
        int j = random.nextInt(i + 1);
        String t = paths.get(i);
        paths.set(i, paths.get(j));
        paths.set(j, t);
      }
      for (String p : paths) {
        foldOf.put(p, next++ % k);
      }
    }
    List<Fold> out = new ArrayList<>();
    for (int f = 0; f < k; f++) {
      int fold = f;
      out.add(new Fold("fold " + (f + 1) + "/" + k, s -> foldOf.get(s.path()) == fold));
    }
    return out;
  }

  /** One fold per category, holding it out. */
  static List<Fold> categoryFolds(NabCorpus corpus) {
    List<Fold> out = new ArrayList<>();
    corpus.series().stream()
        .map(NabCorpus.Series::category)
        .distinct()
        .forEach(c -> out.add(new Fold("without " + c, s -> s.category().equals(c))));
    return out;
  }

  static Result run(
      NabCorpus corpus,
      Fold fold,
      NabScorer whole,
      List<NabScorer.ProfileScore> inSample,
      Rule rule) {
    NabCorpus train = corpus.subset(fold.heldOut().negate());
    NabCorpus test = corpus.subset(fold.heldOut());
    NabScorer trainScorer = NabScorer.withCorpusProfiles(train);
    NabScorer testScorer = NabScorer.withCorpusProfiles(test);
    Map<Map<String, Double>, Double> seen = new HashMap<>();
    Map<String, Double> shipped = NabTunings.defaults();
    Map<String, Double> best = search(train, trainScorer, seen, rule);
    double bestScore = seen.get(best);
    double shippedScore = seen.get(shipped);
    return new Result(
        fold,
        test.series().size(),
        test.windowCount(),
        best,
        bestScore,
        shippedScore,
        heldOut(train, test, trainScorer, testScorer, best),
        heldOut(train, test, trainScorer, testScorer, shipped),
        inSampleOn(corpus, test, whole, testScorer, inSample));
  }

  private static double trainScore(
      NabCorpus train,
      NabScorer scorer,
      Map<String, Double> values,
      Map<Map<String, Double>, Double> seen) {
    Double known = seen.get(values);
    if (known != null) {
      return known;
    }
    double s =
        scorer.score(NabDetectors.run(train, NabTunings.ensemble(values))).get(0).normalized();
    seen.put(Map.copyOf(values), s);
    return s;
  }

  /** Thresholds tuned on train, per profile; the held-out files scored at them. */
  private static List<NabScorer.ProfileScore> heldOut(
      NabCorpus train,
      NabCorpus test,
      NabScorer trainScorer,
      NabScorer testScorer,
      Map<String, Double> values) {
    Supplier<AnomalyDetector> detectors = NabTunings.ensemble(values);
    List<NabScorer.ProfileScore> tuned = trainScorer.score(NabDetectors.run(train, detectors));
    List<double[]> scores = NabDetectors.run(test, detectors);
    List<NabScorer.ProfileScore> out = new ArrayList<>();
    for (int p = 0; p < tuned.size(); p++) {
      out.add(testScorer.scoreAt(scores, tuned.get(p).threshold()).get(p));
    }
    return out;
  }

  /** The shipped detector at the whole corpus's thresholds, scored on the held-out files only. */
  private static List<NabScorer.ProfileScore> inSampleOn(
      NabCorpus corpus,
      NabCorpus test,
      NabScorer whole,
      NabScorer testScorer,
      List<NabScorer.ProfileScore> inSample) {
    List<double[]> scores = NabDetectors.run(test, NabTunings.ensemble(NabTunings.defaults()));
    List<NabScorer.ProfileScore> out = new ArrayList<>();
    for (int p = 0; p < inSample.size(); p++) {
      out.add(testScorer.scoreAt(scores, inSample.get(p).threshold()).get(p));
    }
    return out;
  }

  private static String line(Result r, Map<String, Double> shipped) {
    return String.format(
        Locale.ROOT,
        "%s: held out %d files, %d windows; tuned %s (train %.2f, shipped %.2f); held-out %s,"
            + " shipped %s, in-sample %s",
        r.fold().name(),
        r.heldOutFiles(),
        r.heldOutWindows(),
        changes(r.tuned(), shipped),
        r.trainTuned(),
        r.trainShipped(),
        triple(r.heldOutTuned()),
        triple(r.heldOutShipped()),
        triple(r.inSample()));
  }

  static String changes(Map<String, Double> tuned, Map<String, Double> shipped) {
    List<String> out = new ArrayList<>();
    tuned.forEach(
        (k, v) -> {
          if (!v.equals(shipped.get(k))) {
            out.add(k + " " + plain(shipped.get(k)) + "->" + plain(v));
          }
        });
    return out.isEmpty() ? "as shipped" : String.join(", ", out);
  }

  private static String plain(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private static String triple(List<NabScorer.ProfileScore> s) {
    if (Double.isNaN(s.get(0).normalized()) || Double.isInfinite(s.get(0).normalized())) {
      return String.format(
          Locale.ROOT, "n/a (no window; %d false-positive points)", s.get(0).falsePositives());
    }
    return String.format(
        Locale.ROOT,
        "%.1f / %.1f / %.1f",
        s.get(0).normalized(),
        s.get(1).normalized(),
        s.get(2).normalized());
  }

  /** The markdown tables and the pooled held-out scores. */
  static String report(
      NabCorpus corpus, NabScorer whole, List<Result> results, Map<String, Double> shipped) {
    StringBuilder b = new StringBuilder("\n");
    b.append(
        "| fold | files / windows held out | held out, tuned in fold | held out, shipped constants"
            + " | in-sample on the same files | constants the fold's tuning changed |\n");
    b.append("| --- | ---: | ---: | ---: | ---: | --- |\n");
    for (Result r : results) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %d / %d | %s | %s | %s | %s |%n",
              r.fold().name(),
              r.heldOutFiles(),
              r.heldOutWindows(),
              triple(r.heldOutTuned()),
              triple(r.heldOutShipped()),
              triple(r.inSample()),
              changes(r.tuned(), shipped)));
    }
    for (String split : List.of("fold ", "without ")) {
      double[] tuned = new double[3];
      double[] ship = new double[3];
      for (Result r : results) {
        if (r.fold().name().startsWith(split)) {
          for (int p = 0; p < 3; p++) {
            tuned[p] += r.heldOutTuned().get(p).raw();
            ship[p] += r.heldOutShipped().get(p).raw();
          }
        }
      }
      List<NabScorer.Profile> profiles = whole.profiles();
      b.append(
          String.format(
              Locale.ROOT,
              "%nPooled over the %s folds (every file scored by the fold holding it out, normalized"
                  + " over the corpus): tuned in fold %.1f / %.1f / %.1f; shipped constants %.1f /"
                  + " %.1f / %.1f%n",
              split.equals("fold ") ? FOLDS + "-fold" : "leave-one-category-out",
              whole.normalize(profiles.get(0), tuned[0]),
              whole.normalize(profiles.get(1), tuned[1]),
              whole.normalize(profiles.get(2), tuned[2]),
              whole.normalize(profiles.get(0), ship[0]),
              whole.normalize(profiles.get(1), ship[1]),
              whole.normalize(profiles.get(2), ship[2])));
    }
    return b.toString();
  }
}
