package io.ringtail.alert;

import io.ringtail.RollingWindow;
import io.ringtail.WindowSnapshot;
import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.internal.Checks;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;

/**
 * An immutable anomaly rule over rolling windows: what to measure, when it fires, when it resolves.
 * An {@link AlertMonitor} evaluates it and keeps its state.
 *
 * <h2>Kinds</h2>
 *
 * <ul>
 *   <li>{@link #threshold threshold}: a measure of one window against a fixed level (P95 above 250
 *       ms, count at least N).
 *   <li>{@link #sloBurn sloBurn}: the burn rate of a latency objective, {@code
 *       fractionAbove(target) / (1 - objective)} (1 = spending the error budget exactly as fast as
 *       allowed).
 *   <li>{@link #ratio ratio}: a measure of a short window divided by the same measure of a longer
 *       baseline window (last minute's P95 above twice the last half hour's).
 *   <li>{@link #deviation deviation}: how many standard deviations the measure of a window is from
 *       the values that same measure took at earlier evaluations within a baseline period (mean
 *       beyond k standard deviations). A snapshot holds no variance, and the spread of single
 *       samples says little about the spread of a one-minute mean; so the monitor keeps the history
 *       of the measured values itself and compares the current value with the mean and sample
 *       standard deviation of that history (a Shewhart-style control chart). The current value
 *       never counts in its own baseline. It cannot fire before {@link
 *       Builder#minimumBaselinePoints} values were collected; evaluate it at a regular interval
 *       (about the short window's bucket width or more, since values of overlapping windows are
 *       correlated). A lasting shift becomes the new normal after about one baseline period, and
 *       the alert resolves.
 *   <li>{@link #anomaly anomaly}: the score in [0, 1] that a streaming {@link AnomalyDetector}
 *       gives the measure of a window at each evaluation (the detector learns the series as it
 *       goes, in constant memory; see {@link AnomalyDetectorConfig}). Each monitor keeps one
 *       detector per rule; a rule on one key of a {@link KeyedWindows} gives that key its own.
 * </ul>
 *
 * <h2>Firing, hysteresis and cooldown</h2>
 *
 * The rule's value breaches when it is {@linkplain Builder#above above} (or {@linkplain
 * Builder#atLeast at least}) the threshold. It fires once it has breached at every evaluation for
 * {@link Builder#fireAfter fireAfter} (at once by default). While firing it emits nothing more; it
 * resolves when the value drops {@linkplain Builder#resolveBelow below the resolve level} (the
 * threshold by default; set it lower to get a hysteresis band) or there is no data. After resolving
 * it cannot fire again for {@link Builder#cooldown cooldown}. A value of NaN (an empty window,
 * fewer than {@link Builder#minimumSamples minimumSamples}) never breaches.
 *
 * <h2>Baseline: fire only above it, resolve half-way back</h2>
 *
 * A score says that a series changed, not whether it got worse, and it calms down while the change
 * lasts. Two options compare the rule's <em>measured value</em> instead (the measure of the window;
 * for a ratio rule the ratio, for an SLO burn rule the burn rate) with its <em>baseline</em>, an
 * exponentially weighted mean of the measured values of the evaluations at which the rule neither
 * was firing nor fired: the first such value starts it, each later one moves it by {@link
 * Builder#baselineWeight baselineWeight} (0.1 unless set) of the difference.
 *
 * <ul>
 *   <li>{@link Builder#onlyAboveBaseline onlyAboveBaseline}: the rule breaches only while the
 *       measured value is also strictly above the baseline (a latency that drops is no alarm).
 *   <li>{@link Builder#resolveWhenBack resolveWhenBack(fraction)}: once fired, the rule resolves
 *       when the measured value is back at least {@code fraction} (0.5: half-way) of the way from
 *       the value that fired toward the baseline (or beyond it), whatever the rule's value does. No
 *       data is not back: the rule holds until data shows it back. It replaces {@link
 *       Builder#resolveBelow resolveBelow}.
 * </ul>
 *
 * With either option the rule cannot fire before it has a baseline (at its first evaluation with
 * data). The baseline keeps learning through a cooldown and a pending period. {@link
 * AlertMonitor#snapshot AlertMonitor.snapshot} reads the baseline and the fired value.
 */
public final class AlertRule {
  enum Kind {
    THRESHOLD,
    RATIO,
    DEVIATION,
    ANOMALY
  }

  private final String name;
  private final Kind kind;
  private final RollingWindow window;
  private final RollingWindow baseline;
  private final Measure measure;
  private final double threshold;
  private final boolean inclusive;
  private final double resolveBelow;
  private final long fireAfterNanos;
  private final long cooldownNanos;
  private final long minimumSamples;
  private final long baselineNanos;
  private final int minimumBaselinePoints;
  private final AnomalyDetectorConfig detector;
  private final boolean onlyAboveBaseline;
  private final double baselineWeight;
  private final double resolveWhenBack;

  private AlertRule(Builder b) {
    this.name = b.name;
    this.kind = b.kind;
    this.window = b.window;
    this.baseline = b.baseline;
    this.measure = b.measure;
    this.threshold = b.threshold;
    this.inclusive = b.inclusive;
    this.resolveBelow = b.resolveBelow;
    this.fireAfterNanos = b.fireAfter.toNanos();
    this.cooldownNanos = b.cooldown.toNanos();
    this.minimumSamples = b.minimumSamples;
    this.baselineNanos = b.kind == Kind.DEVIATION ? b.baselinePeriod.toNanos() : 0;
    this.minimumBaselinePoints = b.minimumBaselinePoints;
    this.detector = b.detector;
    this.onlyAboveBaseline = b.onlyAboveBaseline;
    this.baselineWeight = b.baselineWeight;
    this.resolveWhenBack = b.resolveWhenBack;
  }

  /** A rule on {@code measure} of {@code window} against a fixed threshold. */
  public static Builder threshold(String name, RollingWindow window, Measure measure) {
    return new Builder(name, Kind.THRESHOLD, window, null, measure, null);
  }

  /**
   * A rule on the burn rate of the objective "a fraction {@code objective} of samples at or below
   * {@code target}" (0.99 for 99 %): {@code fractionAbove(target) / (1 - objective)}. Set {@link
   * Builder#minimumSamples} so one slow request in a quiet window cannot fire it.
   */
  public static Builder sloBurn(String name, RollingWindow window, long target, double objective) {
    if (!(objective > 0.0 && objective < 1.0)) {
      throw Checks.invalid("objective", "between 0 and 1 exclusive", objective);
    }
    Measure fraction = Measure.fractionAbove(target);
    double budget = 1.0 - objective;
    Measure burn =
        new NamedMeasure(
            s -> fraction.of(s) / budget,
            "burnRate(" + fraction + ", objective=" + objective + ")");
    return new Builder(name, Kind.THRESHOLD, window, null, burn, null);
  }

  /**
   * A rule on {@code measure(window) / measure(baseline)}; no data if either is NaN or the
   * baseline's is 0.
   */
  public static Builder ratio(
      String name, RollingWindow window, RollingWindow baseline, Measure measure) {
    return new Builder(
        name, Kind.RATIO, window, Checks.requireNonNull("baseline", baseline), measure, null);
  }

  /**
   * A rule on {@code |m - mean(history)| / stddev(history)}, where {@code m} is {@code measure} of
   * {@code window} now and {@code history} the values it took at evaluations in the last {@code
   * baselinePeriod}. A history with no spread gives 0 if {@code m} equals its mean and infinity
   * otherwise.
   */
  public static Builder deviation(
      String name, RollingWindow window, Measure measure, Duration baselinePeriod) {
    return new Builder(
        name,
        Kind.DEVIATION,
        window,
        null,
        measure,
        Checks.requireNonNull("baselinePeriod", baselinePeriod));
  }

  /**
   * A rule on the anomaly score, in [0, 1], that a detector built from {@code detector} gives
   * {@code measure} of {@code window} at each evaluation. A NaN measure (no data) is not shown to
   * the detector. Evaluate it at a steady interval: the detector counts evaluations, not time.
   * Every method maps its alarm level to 0.5, so {@code above(0.5)} fires at it; a higher threshold
   * fires less often.
   */
  public static Builder anomaly(
      String name, RollingWindow window, Measure measure, AnomalyDetectorConfig detector) {
    Builder b = new Builder(name, Kind.ANOMALY, window, null, measure, null);
    b.detector = Checks.requireNonNull("detector", detector);
    return b;
  }

  /**
   * An {@link #anomaly(String, RollingWindow, Measure, AnomalyDetectorConfig) anomaly} rule on the
   * window of one {@code key} of {@code windows}, with a detector of its own: add one rule per key
   * to watch each key's series separately. The rule reads {@link KeyedWindows#window
   * windows.window(key)}: while the key holds nothing its window is empty.
   */
  public static Builder anomaly(
      String name,
      KeyedWindows windows,
      String key,
      Measure measure,
      AnomalyDetectorConfig detector) {
    return anomaly(name, Checks.requireNonNull("windows", windows).window(key), measure, detector);
  }

  /** The rule's name, unique within a monitor. */
  public String name() {
    return name;
  }

  /** The window the rule measures. */
  public RollingWindow window() {
    return window;
  }

  Kind kind() {
    return kind;
  }

  RollingWindow baseline() {
    return baseline;
  }

  Measure measure() {
    return measure;
  }

  long fireAfterNanos() {
    return fireAfterNanos;
  }

  long cooldownNanos() {
    return cooldownNanos;
  }

  long baselineNanos() {
    return baselineNanos;
  }

  int minimumBaselinePoints() {
    return minimumBaselinePoints;
  }

  /** A fresh detector for an anomaly rule's state; null for other kinds. */
  AnomalyDetector newDetector() {
    return detector == null ? null : detector.newDetector();
  }

  boolean breaches(double value) {
    return inclusive ? value >= threshold : value > threshold;
  }

  /**
   * Whether the rule breaches: its value at the threshold and, with a baseline, a baseline known
   * and (only above it) the measured value above it.
   */
  boolean breaches(double value, double measured, double baseline) {
    if (!breaches(value)) {
      return false;
    }
    if (!tracksBaseline()) {
      return true;
    }
    return !Double.isNaN(baseline) && (!onlyAboveBaseline || measured > baseline);
  }

  boolean clears(double value) {
    return Double.isNaN(value)
        || (Double.isNaN(resolveBelow) ? !breaches(value) : value < resolveBelow);
  }

  /**
   * Whether a firing rule resolves: resolving when back, the measured value back the fraction of
   * the way from {@code fired} toward {@code baseline} (no data: not back); else the value clear or
   * no data.
   */
  boolean clears(double value, double measured, double fired, double baseline) {
    if (Double.isNaN(resolveWhenBack)) {
      return clears(value);
    }
    if (Double.isNaN(measured)) {
      return false;
    }
    double distance = fired - baseline;
    double bound = baseline + (1.0 - resolveWhenBack) * distance;
    return distance > 0 ? measured <= bound : distance < 0 ? measured >= bound : true;
  }

  /** Whether the rule keeps a baseline of its measured values. */
  boolean tracksBaseline() {
    return onlyAboveBaseline || !Double.isNaN(resolveWhenBack);
  }

  boolean resolvesWhenBack() {
    return !Double.isNaN(resolveWhenBack);
  }

  /** The baseline after taking in {@code measured}. */
  double nextBaseline(double baseline, double measured) {
    return Double.isNaN(baseline) ? measured : baseline + baselineWeight * (measured - baseline);
  }

  /** {@code measure} of {@code s}, or NaN when it holds fewer than {@code minimumSamples}. */
  double measured(WindowSnapshot s) {
    return s.count() < minimumSamples ? Double.NaN : measure.of(s);
  }

  @Override
  public String toString() {
    return "AlertRule["
        + name
        + ": "
        + kind.name().toLowerCase()
        + " "
        + measure
        + (inclusive ? " >= " : " > ")
        + threshold
        + (Double.isNaN(resolveBelow) ? "" : ", resolveBelow=" + resolveBelow)
        + ", fireAfter="
        + Duration.ofNanos(fireAfterNanos)
        + ", cooldown="
        + Duration.ofNanos(cooldownNanos)
        + ", minimumSamples="
        + minimumSamples
        + (kind == Kind.DEVIATION
            ? ", baseline="
                + Duration.ofNanos(baselineNanos)
                + ", minimumBaselinePoints="
                + minimumBaselinePoints
            : "")
        + (kind == Kind.ANOMALY ? ", detector=" + detector : "")
        + (onlyAboveBaseline ? ", onlyAboveBaseline" : "")
        + (Double.isNaN(resolveWhenBack) ? "" : ", resolveWhenBack=" + resolveWhenBack)
        + (tracksBaseline() ? ", baselineWeight=" + baselineWeight : "")
        + "]";
  }

  /**
   * Fluent builder of an {@link AlertRule}; reusable, not thread-safe. The factory's arguments are
   * checked at once, every other value by {@link #build()}.
   */
  public static final class Builder {
    private final String name;
    private final Kind kind;
    private final RollingWindow window;
    private final RollingWindow baseline;
    private final Measure measure;
    private final Duration baselinePeriod;
    private double threshold = Double.NaN;
    private boolean thresholdSet;
    private boolean inclusive;
    private double resolveBelow = Double.NaN;
    private boolean resolveBelowSet;
    private Duration fireAfter = Duration.ZERO;
    private Duration cooldown = Duration.ZERO;
    private long minimumSamples = 0;
    private int minimumBaselinePoints = 10;
    private AnomalyDetectorConfig detector;
    private boolean onlyAboveBaseline;
    private double baselineWeight = 0.1;
    private boolean baselineWeightSet;
    private double resolveWhenBack = Double.NaN;
    private boolean resolveWhenBackSet;

    private Builder(
        String name,
        Kind kind,
        RollingWindow window,
        RollingWindow baseline,
        Measure measure,
        Duration baselinePeriod) {
      this.name = Checks.requireNonBlank("name", name);
      this.kind = kind;
      this.window = Checks.requireNonNull("window", window);
      this.baseline = baseline;
      this.measure = Checks.requireNonNull("measure", measure);
      this.baselinePeriod = baselinePeriod;
    }

    /** Breaches when the value is strictly above {@code threshold}, a finite number. */
    public Builder above(double threshold) {
      return threshold(threshold, false);
    }

    /** Breaches when the value is at least {@code threshold}, a finite number. */
    public Builder atLeast(double threshold) {
      return threshold(threshold, true);
    }

    private Builder threshold(double threshold, boolean inclusive) {
      this.threshold = threshold;
      this.thresholdSet = true;
      this.inclusive = inclusive;
      return this;
    }

    /**
     * Resolves only once the value is strictly below {@code level}, at most the threshold: a value
     * between the two holds the current state (hysteresis). Without it the rule resolves as soon as
     * it no longer breaches.
     */
    public Builder resolveBelow(double level) {
      this.resolveBelow = level;
      this.resolveBelowSet = true;
      return this;
    }

    /**
     * Breaches only while the measured value is also strictly above its baseline (see the class
     * comment): a change for the better is no alarm. Off unless set.
     */
    public Builder onlyAboveBaseline() {
      this.onlyAboveBaseline = true;
      return this;
    }

    /**
     * Resolves once the measured value is back half-way from the value that fired toward its
     * baseline: {@link #resolveWhenBack(double) resolveWhenBack(0.5)}.
     */
    public Builder resolveWhenBack() {
      return resolveWhenBack(0.5);
    }

    /**
     * Resolves once the measured value is back at least {@code fraction} (above 0, at most 1) of
     * the way from the value that fired toward its baseline, or beyond; instead of when the rule's
     * value clears or there is no data (see the class comment). Not combined with {@link
     * #resolveBelow}.
     */
    public Builder resolveWhenBack(double fraction) {
      this.resolveWhenBack = fraction;
      this.resolveWhenBackSet = true;
      return this;
    }

    /**
     * The weight (above 0, at most 1) of each new measured value in the baseline, an exponentially
     * weighted mean: about the inverse of the number of evaluations it remembers; 0.1 unless set.
     * Only with {@link #onlyAboveBaseline} or {@link #resolveWhenBack}.
     */
    public Builder baselineWeight(double weight) {
      this.baselineWeight = weight;
      this.baselineWeightSet = true;
      return this;
    }

    /** Fires only after breaching at every evaluation for this long; zero (at once) unless set. */
    public Builder fireAfter(Duration fireAfter) {
      this.fireAfter = fireAfter;
      return this;
    }

    /** After resolving, stays quiet for this long whatever the value; zero unless set. */
    public Builder cooldown(Duration cooldown) {
      this.cooldown = cooldown;
      return this;
    }

    /**
     * A window (each window, for a ratio) with fewer samples is no data; 0 unless set (an empty
     * window is no data anyway for every measure but the count).
     */
    public Builder minimumSamples(long minimumSamples) {
      this.minimumSamples = minimumSamples;
      return this;
    }

    /**
     * For a deviation rule: earlier values needed before it can fire, at least 2; 10 unless set.
     */
    public Builder minimumBaselinePoints(int points) {
      this.minimumBaselinePoints = points;
      return this;
    }

    /**
     * Validates and returns the rule. Durations must fit in a {@code long} of nanoseconds (about
     * 292 years).
     *
     * @throws IllegalStateException if no threshold was set, or a baseline weight without an option
     *     that uses the baseline
     * @throws NullPointerException if a duration was set to null
     * @throws IllegalArgumentException if a value is out of range (a threshold or resolve level
     *     that is not finite, a resolve level above the threshold, a negative or too long duration,
     *     a deviation rule's baseline period that is not positive, a baseline weight or resolve
     *     fraction outside (0, 1], a resolve fraction with a resolve level), naming it
     */
    public AlertRule build() {
      if (!thresholdSet) {
        throw new IllegalStateException(
            "a threshold must be set with above() or atLeast() for rule " + name);
      }
      Checks.requireFinite("threshold", threshold);
      if (resolveBelowSet) {
        Checks.requireFinite("resolveBelow", resolveBelow);
        if (resolveBelow > threshold) {
          throw Checks.invalid("resolveBelow", "at most the threshold " + threshold, resolveBelow);
        }
      }
      Checks.requireNonNegativeNanos("fireAfter", fireAfter);
      Checks.requireNonNegativeNanos("cooldown", cooldown);
      Checks.requireNonNegative("minimumSamples", minimumSamples);
      Checks.requireBetween("minimumBaselinePoints", minimumBaselinePoints, 2, Integer.MAX_VALUE);
      if (kind == Kind.DEVIATION) {
        Checks.requirePositiveNanos("baselinePeriod", baselinePeriod);
      }
      requireFraction("baselineWeight", baselineWeight);
      boolean whenBack = resolveWhenBackSet;
      if (whenBack) {
        requireFraction("resolveWhenBack", resolveWhenBack);
        if (resolveBelowSet) {
          throw Checks.invalid(
              "resolveWhenBack", "not combined with resolveBelow", resolveWhenBack);
        }
      }
      if (baselineWeightSet && !onlyAboveBaseline && !whenBack) {
        throw new IllegalStateException(
            "baselineWeight needs onlyAboveBaseline() or resolveWhenBack() for rule " + name);
      }
      return new AlertRule(this);
    }

    private static void requireFraction(String name, double value) {
      if (!(value > 0.0 && value <= 1.0)) {
        throw Checks.invalid(name, "above 0 and at most 1", value);
      }
    }
  }
}
