package io.ringtail.benchmarks.nab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.benchmarks.nab.NabScorer.ProfileScore;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scorer and the library's best detector on the real NAB corpus, read from {@code
 * ../shared/nab} beside the project root (or {@code -Dringtail.nab.dir}). Without the corpus these
 * tests are skipped, and fail when {@code CI=true}.
 */
class NabCorpusScoreTest {
  private static final Path DIR = NabCorpus.locate();
  private static NabCorpus corpus;
  private static NabScorer scorer;

  @BeforeAll
  static void readCorpus() {
    if (NabCorpus.present(DIR)) {
      corpus = NabCorpus.load(DIR);
      scorer = NabScorer.withCorpusProfiles(corpus);
    }
  }

  /** Each test is skipped (failed when {@code CI=true}) without the corpus. */
  @BeforeEach
  void requireCorpus() {
    if (corpus == null) {
      Path dir = DIR;
      String why =
          "the NAB corpus is not at "
              + dir
              + " (clone the project beside shared/nab, or set -D"
              + NabCorpus.DIR_PROPERTY
              + ")";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but " + why);
      }
      Assumptions.abort(why);
    }
  }

  @Test
  void corpus_isNabsFiftyEightSeries() {
    assertThat(corpus.series()).hasSize(58);
    assertThat(corpus.windowCount()).isEqualTo(116);
    assertThat(corpus.pointCount()).isEqualTo(365_558);
    assertThat(scorer.profiles()).isEqualTo(NabScorer.NAB_PROFILES);
  }

  @Test
  void nullDetector_scoresZero() {
    for (ProfileScore s : scorer.score(NabDetectors.constant(corpus))) {
      assertThat(s.normalized()).as(s.profile().name()).isEqualTo(0.0);
    }
  }

  @Test
  void detectionsAtEachWindowStart_scoreOneHundred() {
    for (ProfileScore s : scorer.score(NabDetectors.atWindowStarts(corpus))) {
      assertThat(s.normalized()).as(s.profile().name()).isCloseTo(100.0, within(1e-9));
      assertThat(s.detectedWindows()).isEqualTo(116);
      assertThat(s.falsePositives()).isZero();
    }
  }

  /**
   * NAB's random detector is one draw (seed 42 for every file); 20 seeds give the spread of such a
   * draw: the published row (11.0, 1.2, 19.5) must lie within one standard deviation of the mean
   * over seeds, and that spread must be narrow enough to mean something.
   */
  @Test
  void randomDetector_reproducesThePublishedRowWithinItsSpread() {
    double[] published = {11.0, 1.2, 19.5};
    int seeds = 20;
    double[] sum = new double[3];
    double[] squares = new double[3];
    for (int seed = 1; seed <= seeds; seed++) {
      List<ProfileScore> scores = scorer.score(NabDetectors.random(corpus, seed));
      for (int p = 0; p < 3; p++) {
        double v = scores.get(p).normalized();
        sum[p] += v;
        squares[p] += v * v;
      }
    }
    for (int p = 0; p < 3; p++) {
      double mean = sum[p] / seeds;
      double sd = Math.sqrt(squares[p] / seeds - mean * mean);
      assertThat(sd).as("spread of profile %d", p).isBetween(0.3, 6.0);
      assertThat(published[p])
          .as("profile %d: mean %.2f, sd %.2f", p, mean, sd)
          .isBetween(mean - sd, mean + sd);
    }
  }

  @Test
  void ensemble_meetsTheTargets() {
    List<ProfileScore> scores =
        scorer.score(NabDetectors.run(corpus, NabDetectors.library().get("ringtail_ensemble")));
    assertThat(scores.get(0).normalized()).as("standard").isGreaterThanOrEqualTo(60.0);
    assertThat(scores.get(1).normalized()).as("reward low FP").isGreaterThanOrEqualTo(50.0);
    assertThat(scores.get(2).normalized()).as("reward low FN").isGreaterThanOrEqualTo(60.0);
  }

  @Test
  void stratifiedFolds_holdOutEveryFileOnce_andSpreadEachCategoryEvenly() {
    List<NabCrossValidation.Fold> folds = NabCrossValidation.stratifiedFolds(corpus, 5, 38);
    Map<String, int[]> perCategory = new TreeMap<>();
    for (NabCorpus.Series s : corpus.series()) {
      int[] counts = perCategory.computeIfAbsent(s.category(), c -> new int[folds.size()]);
      int holding = 0;
      for (int f = 0; f < folds.size(); f++) {
        if (folds.get(f).heldOut().test(s)) {
          holding++;
          counts[f]++;
        }
      }
      assertThat(holding).as(s.path()).isEqualTo(1);
    }
    perCategory.forEach(
        (category, counts) -> {
          int min = Arrays.stream(counts).min().orElseThrow();
          int max = Arrays.stream(counts).max().orElseThrow();
          assertThat(max - min).as(category).isLessThanOrEqualTo(1);
        });
    assertThat(NabCrossValidation.categoryFolds(corpus)).hasSize(perCategory.size());
  }

  @Test
  void tuningHandle_atTheShippedValues_scoresBitForBitAsTheLibrary() {
    List<double[]> library =
        NabDetectors.run(corpus, NabDetectors.library().get("ringtail_ensemble"));
    List<double[]> handle = NabDetectors.run(corpus, NabTunings.ensemble(NabTunings.defaults()));
    for (int s = 0; s < library.size(); s++) {
      assertThat(handle.get(s)).isEqualTo(library.get(s));
    }
  }

  @Test
  void normalize_ofTheSeriesSums_isTheScore() {
    List<double[]> scores =
        NabDetectors.run(corpus, NabDetectors.library().get("ringtail_ensemble"));
    for (ProfileScore p : scorer.score(scores)) {
      double raw = Arrays.stream(scorer.perSeries(scores, p.threshold(), p.profile())).sum();
      assertThat(scorer.normalize(p.profile(), raw)).isCloseTo(p.normalized(), within(1e-9));
    }
  }
}
