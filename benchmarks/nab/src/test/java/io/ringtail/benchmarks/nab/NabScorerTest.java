package io.ringtail.benchmarks.nab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.benchmarks.nab.NabScorer.Profile;
import io.ringtail.benchmarks.nab.NabScorer.ProfileScore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scorer against hand-computed NAB scores on a small corpus of its own: one series of 100
 * points (probation: the first 15), one window over points 40 to 49.
 */
class NabScorerTest {
  private static final Profile STANDARD = NabScorer.NAB_PROFILES.get(0);
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final LocalDateTime T0 = LocalDateTime.of(2024, 1, 1, 0, 0);

  @TempDir Path dir;

  /** NAB's scaled sigmoid written another way: 2 / (1 + e^(5x)) - 1 = -tanh(5x / 2). */
  private static double sigmoid(double x) {
    return -Math.tanh(2.5 * x);
  }

  private NabCorpus corpus() throws IOException {
    Files.createDirectories(dir.resolve("data/cat"));
    Files.createDirectories(dir.resolve("labels"));
    StringBuilder csv = new StringBuilder("timestamp,value\n");
    for (int i = 0; i < 100; i++) {
      csv.append(T0.plusMinutes(i).format(TS)).append(',').append(i % 7).append('\n');
    }
    Files.writeString(dir.resolve("data/cat/one.csv"), csv);
    Files.writeString(
        dir.resolve("labels/combined_windows.json"),
        "{\n  \"cat/one.csv\": [\n    [\n      \""
            + T0.plusMinutes(40).format(TS)
            + ".000000\",\n      \""
            + T0.plusMinutes(49).format(TS)
            + ".000000\"\n    ]\n  ]\n}\n");
    return NabCorpus.load(dir);
  }

  private static double[] detections(int... at) {
    double[] x = new double[100];
    for (int i : at) {
      x[i] = 1.0;
    }
    return x;
  }

  private double raw(double[] scores) throws IOException {
    NabScorer scorer = new NabScorer(corpus(), List.of(STANDARD));
    return scorer.perSeries(List.of(scores), 0.5, STANDARD)[0];
  }

  @Test
  void corpus_readsSeriesWindowsAndProbation() throws IOException {
    NabCorpus c = corpus();
    assertThat(c.series()).hasSize(1);
    NabCorpus.Series s = c.series().get(0);
    assertThat(s.path()).isEqualTo("cat/one.csv");
    assertThat(s.values()).hasSize(100);
    assertThat(s.windows()).isDeepEqualTo(new int[][] {{40, 49}});
    assertThat(s.probation()).isEqualTo(15);
    assertThat(c.windowCount()).isEqualTo(1);
  }

  @Test
  void detectionAtTheWindowStart_earnsTheWholeTpWeight() throws IOException {
    assertThat(raw(detections(40))).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void detectionAtTheWindowEnd_earnsTheSigmoidOfItsRelativePosition() throws IOException {
    // position -(49 - 49 + 1) / 10, divided by S(-1)
    assertThat(raw(detections(49))).isCloseTo(sigmoid(-0.1) / sigmoid(-1.0), within(1e-12));
    assertThat(raw(detections(45))).isCloseTo(sigmoid(-0.5) / sigmoid(-1.0), within(1e-12));
  }

  @Test
  void onlyTheEarliestDetectionInAWindowCounts() throws IOException {
    assertThat(raw(detections(44, 40, 49))).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void missedWindow_costsTheFnWeight() throws IOException {
    assertThat(raw(detections())).isEqualTo(-1.0);
  }

  @Test
  void falsePositives_costByTheirDistanceAfterTheLastWindow() throws IOException {
    // before any window: the whole fp weight
    assertThat(raw(detections(40, 20))).isCloseTo(1.0 - 0.11, within(1e-12));
    // one point after the window's end: (50 - 49) / (10 - 1) window widths past it
    assertThat(raw(detections(40, 50))).isCloseTo(1.0 + 0.11 * sigmoid(1.0 / 9), within(1e-12));
    // 3 widths or more after it: the whole fp weight
    assertThat(raw(detections(40, 90))).isCloseTo(1.0 - 0.11, within(1e-12));
    assertThat(NabScorer.scaledSigmoid(3.0)).isEqualTo(-1.0);
    assertThat(NabScorer.scaledSigmoid(2.99)).isCloseTo(sigmoid(2.99), within(1e-15));
  }

  @Test
  void probationaryDetections_areIgnored() throws IOException {
    assertThat(raw(detections(40, 0, 5, 14))).isCloseTo(1.0, within(1e-12));
    assertThat(raw(detections(40, 15))).isCloseTo(1.0 - 0.11, within(1e-12));
  }

  @Test
  void threshold_isTunedToTheBestSumAndNormalizedAgainstNullAndPerfect() throws IOException {
    double[] x = new double[100];
    x[20] = 0.95; // a false positive scored above the window's detection
    x[40] = 0.9; // the window's start
    x[90] = 0.5; // another false positive
    NabScorer scorer = new NabScorer(corpus(), NabScorer.NAB_PROFILES);
    List<ProfileScore> scores = scorer.score(List.of(x));
    ProfileScore standard = scores.get(0);
    // thresholds above 0.95: -1; 0.95: -1.11; 0.9: 1 - 0.11; 0.5: 1 - 0.22
    assertThat(standard.threshold()).isEqualTo(0.9);
    assertThat(standard.raw()).isCloseTo(0.89, within(1e-12));
    assertThat(standard.normalized()).isCloseTo(100 * (0.89 + 1) / (1 + 1), within(1e-9));
    assertThat(standard.detectedWindows()).isEqualTo(1);
    assertThat(standard.falsePositives()).isEqualTo(1);
    // reward low FN: fn weight 2, null -2, perfect 1
    assertThat(scores.get(2).normalized()).isCloseTo(100 * (0.89 + 2) / 3, within(1e-9));
  }

  @Test
  void constantScores_scoreZero_andWindowStartsOneHundred() throws IOException {
    NabCorpus c = corpus();
    NabScorer scorer = new NabScorer(c, NabScorer.NAB_PROFILES);
    for (ProfileScore s : scorer.score(NabDetectors.constant(c))) {
      assertThat(s.normalized()).isEqualTo(0.0);
    }
    for (ProfileScore s : scorer.score(NabDetectors.atWindowStarts(c))) {
      assertThat(s.normalized()).isCloseTo(100.0, within(1e-9));
    }
  }

  @Test
  void resultFiles_roundTripInNabsLayout() throws IOException {
    NabCorpus c = corpus();
    double[] x = new double[100];
    for (int i = 0; i < x.length; i++) {
      x[i] = i / 100.0;
    }
    Path out = dir.resolve("results");
    NabRunner.write(out, "mine", c, List.of(x));
    Path file = out.resolve("mine/cat/mine_one.csv");
    List<String> lines = Files.readAllLines(file);
    assertThat(lines.get(0)).isEqualTo("timestamp,value,anomaly_score");
    assertThat(lines.get(41)).isEqualTo("2024-01-01 00:40:00,5,0.4");
    assertThat(NabRunner.read(out, "mine", c).get(0)).containsExactly(x);
  }
}
