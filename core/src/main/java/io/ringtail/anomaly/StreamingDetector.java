package io.ringtail.anomaly;

import io.ringtail.internal.DetectorTuning;

/**
 * The detector every {@link AnomalyDetectorConfig} builds: one to three raw scorers (range novelty
 * of the values, and for the ensemble of their recent median too; CUSUM; median/MAD), each turned
 * into a {@link Likelihood} and mapped so that its alarm level lands on 0.5, the largest of them,
 * then a quiet period after an alarm. Not thread-safe.
 */
final class StreamingDetector implements AnomalyDetector {
  /** Values beyond this magnitude are clamped, so no sum or square overflows. */
  private static final double MAX_MAGNITUDE = 1e150;

  /** During quiet the score is scaled by this: below 0.5 whatever the likelihoods say. */
  private static final double QUIET_FACTOR = 0.5;

  /** Points with every score below 0.5 that end a quiet period once its minimum is over. */
  static final int CALM_POINTS = 20;

  static final int LIKELIHOOD_HORIZON = 30_000;

  static final double MAD_SCALE = 1;
  static final double MAD_MIN_SD = 0.1;
  static final double MAD_LEVEL = 0.99;

  private final SortedRing recent;
  private final RangeNovelty range;
  private final Likelihood rangeLikelihood;
  private final RangeNovelty medianRange;
  private final Likelihood medianLikelihood;
  private final Cusum cusum;
  private final Likelihood cusumLikelihood;
  private final boolean robust;
  private final Likelihood robustLikelihood;
  private final int warmUp;
  private final int quietPoints;
  private final double alarm;
  private final double rangeLevel;
  private final double medianLevel;
  private final double cusumLevel;
  private long seen;
  private int quiet;
  private boolean calming;
  private int calm;

  StreamingDetector(AnomalyDetectorConfig config) {
    this(config, DetectorTuning.DEFAULTS);
  }

  /** A detector with other internal constants: for the benchmark's cross-validation only. */
  StreamingDetector(AnomalyDetectorConfig config, DetectorTuning t) {
    AnomalyDetectorConfig.Method m = config.method();
    boolean useRange =
        m == AnomalyDetectorConfig.Method.RANGE || m == AnomalyDetectorConfig.Method.ENSEMBLE;
    boolean useCusum =
        m == AnomalyDetectorConfig.Method.CUSUM || m == AnomalyDetectorConfig.Method.ENSEMBLE;
    this.robust = m == AnomalyDetectorConfig.Method.MEDIAN_MAD;
    int horizon = config.learningPoints();
    this.recent = useRange || robust ? new SortedRing(config.history()) : null;
    this.range = useRange ? new RangeNovelty(t.rangeRelax(), t.rangeScale()) : null;
    this.rangeLikelihood = useRange ? new Likelihood(horizon, t.rangeMinSd()) : null;
    boolean useMedian = m == AnomalyDetectorConfig.Method.ENSEMBLE;
    this.medianRange = useMedian ? new RangeNovelty(t.medianRelax(), t.medianScale()) : null;
    this.medianLikelihood = useMedian ? new Likelihood(horizon, t.medianMinSd()) : null;
    this.cusum = useCusum ? new Cusum(t.cusumHorizon(), t.cusumSlack(), t.cusumScale()) : null;
    this.cusumLikelihood = useCusum ? new Likelihood(horizon, t.cusumMinSd()) : null;
    this.robustLikelihood = robust ? new Likelihood(horizon, MAD_MIN_SD) : null;
    this.warmUp = config.warmUp();
    this.quietPoints = config.quietPoints();
    this.alarm = t.alarm();
    this.rangeLevel = t.rangeLevel();
    this.medianLevel = t.medianLevel();
    this.cusumLevel = t.cusumLevel();
  }

  @Override
  public double score(double value) {
    if (!Double.isFinite(value)) {
      return 0.0;
    }
    double x = Math.max(-MAX_MAGNITUDE, Math.min(MAX_MAGNITUDE, value));
    seen++;
    double out = 0.0;
    if (range != null) {
      double raw = range.next(x, recent.median());
      out = Math.max(out, term(rangeLikelihood, raw, rangeLevel));
    }
    if (cusum != null) {
      out = Math.max(out, term(cusumLikelihood, cusum.next(x), cusumLevel));
    }
    if (robust) {
      out = Math.max(out, term(robustLikelihood, robustRaw(x), MAD_LEVEL));
    }
    if (recent != null) {
      recent.add(x);
    }
    if (medianRange != null) {
      // the recent median, x included, leaving the range the median has taken: a level no lone
      // value reveals
      double median = recent.median();
      double raw = medianRange.next(median, median);
      out = Math.max(out, term(medianLikelihood, raw, medianLevel));
    }
    if (!(out >= 0.0)) {
      out = 0.0; // NaN from a degenerate state scores nothing
    }
    if (seen <= warmUp) {
      return 0.0;
    }
    return quieted(Math.min(1.0, out));
  }

  /** The robust z-score of x against the recent median and MAD, as {@code z / (z + scale)}. */
  private double robustRaw(double x) {
    if (recent.size() < 8) {
      return 0.0;
    }
    double median = recent.median();
    double spread = 1.4826 * recent.medianDeviation(median);
    double floor = 1e-3 * (recent.max() - recent.min()) + 1e-9 * Math.abs(median) + 1e-12;
    double z = Math.abs(x - median) / Math.max(spread, floor);
    return Double.isInfinite(z) ? 1.0 : z / (z + MAD_SCALE);
  }

  /**
   * One scorer's part of the score: its likelihood mapped {@linkplain #atLevel at its level}, or 0
   * for a raw score of 0 (nothing novel, no drift), which the likelihood still learns. Without
   * that, a steady series, whose raw scores are all 0 and so all at their mean, would score the
   * likelihood of its mean, 0.5, and sit at the alarm level.
   */
  private static double term(Likelihood likelihood, double raw, double level) {
    double l = likelihood.next(raw);
    return raw > 0.0 ? atLevel(l, level) : 0.0;
  }

  /** Maps a likelihood so that {@code level} lands on 0.5, linearly on either side. */
  static double atLevel(double likelihood, double level) {
    return likelihood >= level
        ? 0.5 + 0.5 * (likelihood - level) / (1.0 - level)
        : 0.5 * likelihood / level;
  }

  /**
   * After an alarm (a score of at least {@link DetectorTuning#alarm()}) scores are halved for at
   * least {@code quietPoints} points and then until {@link #CALM_POINTS} points in a row score
   * below 0.5: one anomaly, one alarm.
   */
  private double quieted(double out) {
    if (quiet > 0) {
      quiet--;
      return out * QUIET_FACTOR;
    }
    if (calming) {
      calm = out < 0.5 ? calm + 1 : 0;
      if (calm < CALM_POINTS) {
        return out * QUIET_FACTOR;
      }
      calming = false;
    }
    if (out >= alarm) {
      quiet = quietPoints;
      calming = true;
      calm = 0;
    }
    return out;
  }

  @Override
  public long footprintBytes() {
    // header 12, eight references and four ints of 4, a long, four doubles, two booleans: 102,
    // padded to 104
    long bytes = 104;
    if (recent != null) {
      bytes += recent.footprintBytes();
    }
    if (range != null) {
      bytes += RangeNovelty.footprintBytes() + Likelihood.footprintBytes();
    }
    if (medianRange != null) {
      bytes += RangeNovelty.footprintBytes() + Likelihood.footprintBytes();
    }
    if (cusum != null) {
      bytes += Cusum.footprintBytes() + Likelihood.footprintBytes();
    }
    if (robust) {
      bytes += Likelihood.footprintBytes();
    }
    return bytes;
  }

  @Override
  public String toString() {
    return "StreamingDetector[seen=" + seen + ", quiet=" + (quiet > 0 || calming) + "]";
  }
}
