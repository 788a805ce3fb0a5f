package io.ringtail.internal;

/**
 * The internal constants of the anomaly detectors, tuned once on the Numenta Anomaly Benchmark:
 * {@link #DEFAULTS} is what every {@code AnomalyDetectorConfig.newDetector()} builds. Other values
 * exist for the benchmark's cross-validation only (it re-tunes them on part of the corpus and
 * scores the rest, through {@code AnomalyDetectorConfig.newDetector(DetectorTuning)}).
 *
 * <p>Internal: public only so that the benchmarks can reach it; not part of the API. Immutable.
 *
 * @param alarm the score from which an alarm starts the quiet period
 * @param rangeRelax values over which the range envelope forgets an old extreme
 * @param rangeScale range widths beyond the envelope that make a raw score of one half
 * @param rangeMinSd the range likelihood's least spread
 * @param rangeLevel the range likelihood mapped to 0.5
 * @param medianRelax values over which the recent median's envelope forgets an old extreme
 * @param medianScale the median's envelope widths beyond it that make a raw score of one half
 * @param medianMinSd the median range likelihood's least spread
 * @param medianLevel the median range likelihood mapped to 0.5
 * @param cusumHorizon values the CUSUM's baseline weighs
 * @param cusumSlack the CUSUM's slack, in standardized units
 * @param cusumScale the CUSUM sum that makes a raw score of one half
 * @param cusumMinSd the CUSUM likelihood's least spread
 * @param cusumLevel the CUSUM likelihood mapped to 0.5
 */
public record DetectorTuning(
    double alarm,
    double rangeRelax,
    double rangeScale,
    double rangeMinSd,
    double rangeLevel,
    double medianRelax,
    double medianScale,
    double medianMinSd,
    double medianLevel,
    int cusumHorizon,
    double cusumSlack,
    double cusumScale,
    double cusumMinSd,
    double cusumLevel) {

  /** The shipped constants. */
  public static final DetectorTuning DEFAULTS =
      new DetectorTuning(
          0.75, 20_000, 3, 0.3, 0.5, 20_000, 8, 0.3, 0.51, 3_000, 0.5, 5, 0.003, 0.99999);
}
