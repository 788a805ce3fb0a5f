package io.ringtail.anomaly;

import io.ringtail.internal.Checks;
import io.ringtail.internal.DetectorTuning;

/**
 * An immutable recipe for {@link AnomalyDetector}s: which method, how long it learns before it
 * scores, how quiet it stays after an alarm. {@link #newDetector()} builds a fresh detector with
 * this recipe for each series.
 *
 * <p>Every method scores a value in two steps. A raw scorer says how odd the value is in its own
 * terms; a likelihood step (after Numenta's "anomaly likelihood") compares that raw score with the
 * raw scores the series has produced so far and maps it so that 0.5 is the method's alarm level: a
 * score of at least 0.5 is an alarm, whatever the series' scale and noise. After an alarm the
 * detector halves its scores for {@link Builder#quietPoints quietPoints} and until the series calms
 * down, so one anomaly gives one alarm rather than a run of them.
 *
 * <p>The methods' internal constants were tuned once, globally, on the Numenta Anomaly Benchmark
 * corpus (never per series); {@code docs/anomaly-detection.md} shows the scores.
 *
 * <p>Immutable and thread-safe; the detectors it builds are not.
 */
public final class AnomalyDetectorConfig {
  /** How the raw score is computed. */
  public enum Method {
    /**
     * Range novelty: how far a value falls outside the range the series has taken (an envelope that
     * follows new extremes at once and forgets old ones over about 20,000 points). Catches spikes,
     * dips and level shifts to values never seen; blind to anything inside the range.
     */
    RANGE,
    /**
     * A two-sided CUSUM of values standardized against a slow baseline (about 3,000 points).
     * Catches slow drifts and small lasting shifts; slow to see a lone spike.
     */
    CUSUM,
    /**
     * The robust z-score of a value against the median and median absolute deviation of the last
     * {@link Builder#history history} values: a control chart that outliers do not widen. Catches
     * lone spikes in noisy series; floods on seasonal ones whose cycle is longer than the history.
     */
    MEDIAN_MAD,
    /**
     * The largest of {@link #RANGE}'s and {@link #CUSUM}'s scores and a third: the range novelty of
     * the median of the last {@link Builder#history history} values, which sees a lasting move to a
     * level only spikes took. The best on the benchmark.
     */
    ENSEMBLE
  }

  private static final AnomalyDetectorConfig DEFAULTS = builder().build();

  private final Method method;
  private final int history;
  private final int warmUp;
  private final int quietPoints;
  private final int learningPoints;

  private AnomalyDetectorConfig(Builder b) {
    this.method = b.method;
    this.history = b.history;
    this.warmUp = b.warmUp;
    this.quietPoints = b.quietPoints;
    this.learningPoints = b.learningPoints;
  }

  /** The {@link Method#ENSEMBLE} with the defaults of every {@link Builder} method. */
  public static AnomalyDetectorConfig defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A new detector, learning from scratch. */
  public AnomalyDetector newDetector() {
    return new StreamingDetector(this);
  }

  /**
   * A new detector whose internal constants are {@code tuning} rather than the shipped {@link
   * DetectorTuning#DEFAULTS}. Internal, not part of the API: for the benchmarks' re-tuning on the
   * Numenta Anomaly Benchmark corpus.
   */
  public AnomalyDetector newDetector(DetectorTuning tuning) {
    return new StreamingDetector(this, Checks.requireNonNull("tuning", tuning));
  }

  /** The method. */
  public Method method() {
    return method;
  }

  /** Recent values kept for the median (and the MAD). */
  public int history() {
    return history;
  }

  /** Values learned before the first non-zero score. */
  public int warmUp() {
    return warmUp;
  }

  /** Minimum points of quiet after an alarm. */
  public int quietPoints() {
    return quietPoints;
  }

  /** About how many past raw scores the likelihood step weighs. */
  public int learningPoints() {
    return learningPoints;
  }

  /** The state each detector of this recipe holds, in bytes (as {@link #newDetector()} reports). */
  public long footprintBytes() {
    return newDetector().footprintBytes();
  }

  @Override
  public String toString() {
    return "AnomalyDetectorConfig["
        + method
        + ", history="
        + history
        + ", warmUp="
        + warmUp
        + ", quietPoints="
        + quietPoints
        + ", learningPoints="
        + learningPoints
        + "]";
  }

  /** Fluent builder of an {@link AnomalyDetectorConfig}; reusable, not thread-safe. */
  public static final class Builder {
    private Method method = Method.ENSEMBLE;
    private int history = 64;
    private int warmUp = 150;
    private int quietPoints = 100;
    private int learningPoints = 30_000;

    private Builder() {}

    /** The method; {@link Method#ENSEMBLE} unless set. */
    public Builder method(Method method) {
      this.method = Checks.requireNonNull("method", method);
      return this;
    }

    /** Recent values kept for the median, 8 to 96; 64 unless set (1 KiB of state). */
    public Builder history(int values) {
      this.history = values;
      return this;
    }

    /**
     * Values learned before the detector scores anything but 0, at least 0; 150 unless set. At one
     * evaluation a minute, 150 is two and a half hours.
     */
    public Builder warmUp(int values) {
      this.warmUp = values;
      return this;
    }

    /** Minimum points of quiet after an alarm, at least 0; 100 unless set. */
    public Builder quietPoints(int points) {
      this.quietPoints = points;
      return this;
    }

    /**
     * About how many past raw scores the likelihood step weighs, at least 10; 30,000 unless set
     * (the series' whole history, for most).
     */
    public Builder learningPoints(int points) {
      this.learningPoints = points;
      return this;
    }

    /**
     * Validates and returns the config.
     *
     * @throws IllegalArgumentException if a value is out of range, naming it
     */
    public AnomalyDetectorConfig build() {
      Checks.requireBetween("history", history, 8, 96);
      Checks.requireBetween("warmUp", warmUp, 0, Integer.MAX_VALUE);
      Checks.requireBetween("quietPoints", quietPoints, 0, Integer.MAX_VALUE);
      Checks.requireBetween("learningPoints", learningPoints, 10, Integer.MAX_VALUE);
      return new AnomalyDetectorConfig(this);
    }
  }
}
