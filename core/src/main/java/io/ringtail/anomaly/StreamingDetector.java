package io.ringtail.anomaly;

/**
 * The detector every {@link AnomalyDetectorConfig} builds: one to three raw scorers (range novelty,
 * CUSUM, median/MAD), each turned into a {@link Likelihood} and mapped so that its alarm level
 * lands on 0.5, the largest of them, then a quiet period after an alarm. Not thread-safe.
 */
final class StreamingDetector implements AnomalyDetector {
  /** Values beyond this magnitude are clamped, so no sum or square overflows. */
  private static final double MAX_MAGNITUDE = 1e150;

  /** The score from which an alarm starts the quiet period. */
  static final double ALARM = 0.75;

  /** During quiet the score is scaled by this: below 0.5 whatever the likelihoods say. */
  private static final double QUIET_FACTOR = 0.5;

  /** Points with every score below 0.5 that end a quiet period once its minimum is over. */
  static final int CALM_POINTS = 20;

  static final int LIKELIHOOD_HORIZON = 30_000;

  static final double RANGE_RELAX = 20_000;
  static final double RANGE_SCALE = 3;
  static final double RANGE_MIN_SD = 0.3;
  static final double RANGE_LEVEL = 0.5;

  static final int CUSUM_HORIZON = 3_000;
  static final double CUSUM_SLACK = 0.5;
  static final double CUSUM_SCALE = 5;
  static final double CUSUM_MIN_SD = 0.003;
  static final double CUSUM_LEVEL = 0.99999;

  static final double MAD_SCALE = 1;
  static final double MAD_MIN_SD = 0.1;
  static final double MAD_LEVEL = 0.99;

  private final SortedRing recent;
  private final RangeNovelty range;
  private final Likelihood rangeLikelihood;
  private final Cusum cusum;
  private final Likelihood cusumLikelihood;
  private final boolean robust;
  private final Likelihood robustLikelihood;
  private final int warmUp;
  private final int quietPoints;
  private long seen;
  private int quiet;
  private boolean calming;
  private int calm;

  StreamingDetector(AnomalyDetectorConfig config) {
    AnomalyDetectorConfig.Method m = config.method();
    boolean useRange =
        m == AnomalyDetectorConfig.Method.RANGE || m == AnomalyDetectorConfig.Method.ENSEMBLE;
    boolean useCusum =
        m == AnomalyDetectorConfig.Method.CUSUM || m == AnomalyDetectorConfig.Method.ENSEMBLE;
    this.robust = m == AnomalyDetectorConfig.Method.MEDIAN_MAD;
    int horizon = config.learningPoints();
    this.recent = useRange || robust ? new SortedRing(config.history()) : null;
    this.range = useRange ? new RangeNovelty(RANGE_RELAX, RANGE_SCALE) : null;
    this.rangeLikelihood = useRange ? new Likelihood(horizon, RANGE_MIN_SD) : null;
    this.cusum = useCusum ? new Cusum(CUSUM_HORIZON, CUSUM_SLACK, CUSUM_SCALE) : null;
    this.cusumLikelihood = useCusum ? new Likelihood(horizon, CUSUM_MIN_SD) : null;
    this.robustLikelihood = robust ? new Likelihood(horizon, MAD_MIN_SD) : null;
    this.warmUp = config.warmUp();
    this.quietPoints = config.quietPoints();
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
      out = Math.max(out, atLevel(rangeLikelihood.next(raw), RANGE_LEVEL));
    }
    if (cusum != null) {
      out = Math.max(out, atLevel(cusumLikelihood.next(cusum.next(x)), CUSUM_LEVEL));
    }
    if (robust) {
      out = Math.max(out, atLevel(robustLikelihood.next(robustRaw(x)), MAD_LEVEL));
    }
    if (recent != null) {
      recent.add(x);
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

  /** Maps a likelihood so that {@code level} lands on 0.5, linearly on either side. */
  static double atLevel(double likelihood, double level) {
    return likelihood >= level
        ? 0.5 + 0.5 * (likelihood - level) / (1.0 - level)
        : 0.5 * likelihood / level;
  }

  /**
   * After an alarm (a score of at least {@link #ALARM}) scores are halved for at least {@code
   * quietPoints} points and then until {@link #CALM_POINTS} points in a row score below 0.5: one
   * anomaly, one alarm.
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
    if (out >= ALARM) {
      quiet = quietPoints;
      calming = true;
      calm = 0;
    }
    return out;
  }

  @Override
  public long footprintBytes() {
    // header 12, six references and four ints of 4, a long, two booleans: 62, padded to 64
    long bytes = 64;
    if (recent != null) {
      bytes += recent.footprintBytes();
    }
    if (range != null) {
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
