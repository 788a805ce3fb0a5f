package io.ringtail.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.anomaly.AnomalyDetectorConfig.Method;
import io.ringtail.internal.DetectorTuning;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AnomalyDetectorTest {
  private static final int LEARN = 2_000;

  private static AnomalyDetector detector(Method method) {
    return AnomalyDetectorConfig.builder().method(method).build().newDetector();
  }

  /** Gaussian noise around 100 with standard deviation 5. */
  private static double noise(SplittableRandom random) {
    double u = random.nextDouble();
    double v = random.nextDouble();
    return 100 + 5 * Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }

  /** Feeds LEARN points of noise, checking every score is in [0, 1]. */
  private static void learn(AnomalyDetector d, SplittableRandom random) {
    firstAlarm(d, LEARN, i -> noise(random));
  }

  /** The index (from 0) of the first score of at least 0.5 among n points, or -1. */
  private static int firstAlarm(
      AnomalyDetector d, int n, java.util.function.IntToDoubleFunction x) {
    int first = -1;
    for (int i = 0; i < n; i++) {
      double s = d.score(x.applyAsDouble(i));
      assertThat(s).isBetween(0.0, 1.0);
      if (s >= 0.5 && first < 0) {
        first = i;
      }
    }
    return first;
  }

  @Test
  void newDetector_withTheShippedTuning_scoresAsTheDefault_andAnotherAlarmMovesTheScores() {
    AnomalyDetectorConfig config = AnomalyDetectorConfig.defaults();
    DetectorTuning d = DetectorTuning.DEFAULTS;
    DetectorTuning later =
        new DetectorTuning(
            0.95,
            d.rangeRelax(),
            d.rangeScale(),
            d.rangeMinSd(),
            d.rangeLevel(),
            d.medianRelax(),
            d.medianScale(),
            d.medianMinSd(),
            d.medianLevel(),
            d.cusumHorizon(),
            d.cusumSlack(),
            d.cusumScale(),
            d.cusumMinSd(),
            d.cusumLevel());
    AnomalyDetector shipped = config.newDetector();
    AnomalyDetector same = config.newDetector(DetectorTuning.DEFAULTS);
    AnomalyDetector other = config.newDetector(later);
    SplittableRandom random = new SplittableRandom(7);
    int differ = 0;
    for (int i = 0; i < LEARN + 200; i++) {
      // a level shift after LEARN points: an alarm from 0.75 starts a quiet period, not from 0.95
      double x = noise(random) + (i >= LEARN ? 60 : 0);
      double s = shipped.score(x);
      assertThat(same.score(x)).isEqualTo(s);
      differ += other.score(x) != s ? 1 : 0;
    }
    assertThat(differ).isPositive();
    assertThatThrownBy(() -> config.newDetector(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tuning");
  }

  @ParameterizedTest
  @EnumSource(
      value = Method.class,
      names = {"RANGE", "ENSEMBLE"})
  void levelShift_firesWithinAFewPoints(Method method) {
    SplittableRandom random = new SplittableRandom(1);
    AnomalyDetector d = detector(method);
    learn(d, random);
    assertThat(firstAlarm(d, 50, i -> noise(random) + 60)).isBetween(0, 3);
  }

  @ParameterizedTest
  @EnumSource(
      value = Method.class,
      names = {"CUSUM", "ENSEMBLE"})
  void slowDrift_fires(Method method) {
    SplittableRandom random = new SplittableRandom(2);
    AnomalyDetector d = detector(method);
    learn(d, random);
    // 0.02 standard deviations per point: invisible point by point, 2 sd after 500 points
    int first = firstAlarm(d, 1_000, i -> noise(random) + 0.1 * i);
    assertThat(first).isBetween(20, 800);
  }

  @Test
  void range_slowDrift_doesNotFireBeforeItLeavesTheRange() {
    SplittableRandom random = new SplittableRandom(2);
    AnomalyDetector d = detector(Method.RANGE);
    learn(d, random);
    assertThat(firstAlarm(d, 50, i -> noise(random) + 0.01 * i)).isEqualTo(-1);
  }

  /** Noise around 100 with one value in five at {@code spike}: its range reaches the spikes. */
  private static double spiky(SplittableRandom random, double shift, double spike) {
    return random.nextInt(5) == 0 ? spike : noise(random) + shift;
  }

  /** The first alarm of a fresh detector on a series that shifts by 4 sd after 5,000 values. */
  private static int firstAlarmAfterShift(Method method, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    AnomalyDetector d = detector(method);
    for (int i = 0; i < 5_000; i++) {
      d.score(spiky(random, 0, 200));
    }
    // the spikes stay below their old top, and the mean moves less than the CUSUM's slack
    return firstAlarm(d, 40, i -> spiky(random, 20, 195));
  }

  @Test
  void ensemble_shiftInsideTheRange_firesWhenTheMedianLeavesItsRange() {
    int caught = 0;
    for (long seed = 1; seed <= 20; seed++) {
      int ensemble = firstAlarmAfterShift(Method.ENSEMBLE, seed);
      if (ensemble >= 0
          && firstAlarmAfterShift(Method.RANGE, seed) < 0
          && firstAlarmAfterShift(Method.CUSUM, seed) < 0) {
        // the median of 64 moves once about a third of them has shifted
        assertThat(ensemble).isBetween(5, 40);
        caught++;
      }
    }
    // neither the range nor the CUSUM sees this shift: whatever the ensemble catches, its median
    // range does; it misses a shift no larger than the median's own wander while it learned
    assertThat(caught).isGreaterThanOrEqualTo(10);
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void scores_dependOnlyOnEarlierValues(Method method) {
    SplittableRandom random = new SplittableRandom(9);
    double[] series = new double[6_000];
    for (int i = 0; i < series.length; i++) {
      series[i] = noise(random) + (i >= 3_000 ? 40 : 0) + (i % 700 == 0 ? 100 : 0);
    }
    AnomalyDetector original = detector(method);
    double[] scores = new double[series.length];
    for (int i = 0; i < series.length; i++) {
      scores[i] = original.score(series[i]);
    }
    for (int cut : new int[] {1, 150, 2_999, 3_000, 3_033, 5_000}) {
      AnomalyDetector d = detector(method);
      SplittableRandom other = new SplittableRandom(cut);
      for (int i = 0; i < series.length; i++) {
        double s = d.score(i < cut ? series[i] : 1e6 * other.nextDouble());
        if (i < cut) {
          // bit for bit: a value after the cut changes nothing before it
          assertThat(Double.doubleToRawLongBits(s))
              .as("%s, cut %d, point %d", method, cut, i)
              .isEqualTo(Double.doubleToRawLongBits(scores[i]));
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Method.class,
      names = {"RANGE", "MEDIAN_MAD", "ENSEMBLE"})
  void spike_firesAtTheSpikeThenQuietsDown(Method method) {
    SplittableRandom random = new SplittableRandom(4);
    AnomalyDetector d = detector(method);
    learn(d, random);
    assertThat(d.score(400)).isGreaterThanOrEqualTo(0.5);
    // the quiet period: the series' return to normal raises no second alarm
    assertThat(firstAlarm(d, 100, i -> noise(random))).isEqualTo(-1);
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void noise_raisesFewAlarms(Method method) {
    SplittableRandom random = new SplittableRandom(5);
    AnomalyDetector d = detector(method);
    learn(d, random);
    int alarms = 0;
    for (int i = 0; i < 20_000; i++) {
      double s = d.score(noise(random));
      assertThat(s).isBetween(0.0, 1.0);
      alarms += s >= 0.5 ? 1 : 0;
    }
    assertThat(alarms).isLessThan(40); // under one in 500 points of pure noise
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void constant_scoresZero(Method method) {
    // nothing about a steady series is unusual: not a score that sits at the alarm level
    for (double value : new double[] {42.0, 0.0, -3.5}) {
      AnomalyDetector d = detector(method);
      for (int i = 0; i < 5_000; i++) {
        assertThat(d.score(value)).as("point %d of %s", i, value).isZero();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void warmUp_scoresZero(Method method) {
    AnomalyDetector d =
        AnomalyDetectorConfig.builder().method(method).warmUp(10).build().newDetector();
    for (int i = 0; i < 10; i++) {
      assertThat(d.score(i % 2 == 0 ? 1 : 1e9)).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void badValues_scoreZeroAndLeaveTheStateAsItWas(Method method) {
    SplittableRandom a = new SplittableRandom(6);
    SplittableRandom b = new SplittableRandom(6);
    AnomalyDetector clean = detector(method);
    AnomalyDetector dirty = detector(method);
    for (int i = 0; i < 3_000; i++) {
      double v = noise(a);
      assertThat(dirty.score(Double.NaN)).isZero();
      assertThat(dirty.score(Double.POSITIVE_INFINITY)).isZero();
      assertThat(dirty.score(Double.NEGATIVE_INFINITY)).isZero();
      assertThat(dirty.score(v)).isEqualTo(clean.score(noise(b) + 0 * v));
    }
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void extremeValues_scoreInRangeWithoutNaN(Method method) {
    AnomalyDetector d = detector(method);
    SplittableRandom random = new SplittableRandom(7);
    double[] extremes = {
      Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, 0.0, -0.0, 1e300, -1e300, 1e-300
    };
    for (int i = 0; i < 10_000; i++) {
      double v =
          random.nextInt(10) == 0 ? extremes[random.nextInt(extremes.length)] : noise(random);
      double s = d.score(v);
      assertThat(s).isBetween(0.0, 1.0);
    }
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void footprint_atMostTwoKiB(Method method) {
    AnomalyDetectorConfig largest =
        AnomalyDetectorConfig.builder().method(method).history(96).build();
    assertThat(largest.footprintBytes()).isBetween(100L, 2048L);
    assertThat(AnomalyDetectorConfig.defaults().footprintBytes()).isLessThanOrEqualTo(1536);
  }

  @Test
  void defaults_areTheEnsemble() {
    AnomalyDetectorConfig c = AnomalyDetectorConfig.defaults();
    assertThat(c.method()).isEqualTo(Method.ENSEMBLE);
    assertThat(c.history()).isEqualTo(64);
    assertThat(c.warmUp()).isEqualTo(150);
    assertThat(c.quietPoints()).isEqualTo(100);
    assertThat(c.learningPoints()).isEqualTo(30_000);
    assertThat(c)
        .hasToString(
            "AnomalyDetectorConfig[ENSEMBLE, history=64, warmUp=150, quietPoints=100,"
                + " learningPoints=30000]");
  }

  @Test
  void builder_outOfRange_isRefusedNamingTheValue() {
    assertThatThrownBy(() -> AnomalyDetectorConfig.builder().history(7).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("history")
        .hasMessageContaining("but was 7");
    assertThatThrownBy(() -> AnomalyDetectorConfig.builder().history(97).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AnomalyDetectorConfig.builder().warmUp(-1).build())
        .hasMessageContaining("warmUp");
    assertThatThrownBy(() -> AnomalyDetectorConfig.builder().quietPoints(-1).build())
        .hasMessageContaining("quietPoints");
    assertThatThrownBy(() -> AnomalyDetectorConfig.builder().learningPoints(9).build())
        .hasMessageContaining("learningPoints");
    assertThatThrownBy(() -> AnomalyDetectorConfig.builder().method(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void atLevel_mapsTheLevelToOneHalfMonotonically() {
    assertThat(StreamingDetector.atLevel(0.99, 0.99)).isEqualTo(0.5);
    assertThat(StreamingDetector.atLevel(1.0, 0.99)).isEqualTo(1.0);
    assertThat(StreamingDetector.atLevel(0.0, 0.99)).isEqualTo(0.0);
    assertThat(StreamingDetector.atLevel(0.98, 0.99)).isLessThan(0.5);
    assertThat(StreamingDetector.atLevel(0.995, 0.99)).isBetween(0.5, 1.0);
  }

  @Test
  void erfc_matchesKnownValues() {
    assertThat(Likelihood.erfc(0)).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-7));
    assertThat(Likelihood.erfc(1))
        .isCloseTo(0.157299207, org.assertj.core.api.Assertions.within(1e-7));
    assertThat(Likelihood.erfc(-1))
        .isCloseTo(1.842700793, org.assertj.core.api.Assertions.within(1e-7));
    assertThat(Likelihood.erfc(3))
        .isCloseTo(2.209049699858544e-05, org.assertj.core.api.Assertions.within(1e-11));
  }
}
