package io.ringtail.benchmarks.nab;

import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.internal.DetectorTuning;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The benchmark's handle on the detector's tuned constants, for cross-validation on the NAB corpus:
 * the internal constants ({@link DetectorTuning}, which {@link
 * AnomalyDetectorConfig#newDetector(DetectorTuning)} takes) and the builder's history, warm-up and
 * quiet period, by name.
 *
 * <p>Stateless and thread-safe.
 */
public final class NabTunings {
  private NabTunings() {}

  /** The shipped values, by name, in a fixed order. */
  public static Map<String, Double> defaults() {
    DetectorTuning t = DetectorTuning.DEFAULTS;
    AnomalyDetectorConfig c = AnomalyDetectorConfig.defaults();
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("alarm", t.alarm());
    out.put("quietPoints", (double) c.quietPoints());
    out.put("rangeRelax", t.rangeRelax());
    out.put("rangeScale", t.rangeScale());
    out.put("rangeLevel", t.rangeLevel());
    out.put("medianRelax", t.medianRelax());
    out.put("medianScale", t.medianScale());
    out.put("medianLevel", t.medianLevel());
    out.put("cusumHorizon", (double) t.cusumHorizon());
    out.put("cusumScale", t.cusumScale());
    out.put("cusumSlack", t.cusumSlack());
    out.put("cusumLevel", t.cusumLevel());
    out.put("history", (double) c.history());
    out.put("warmUp", (double) c.warmUp());
    return out;
  }

  /**
   * Fresh {@code ENSEMBLE} detectors with {@code values} (every name of {@link #defaults()}).
   *
   * @throws IllegalArgumentException if a name is missing or a value out of range
   */
  public static Supplier<AnomalyDetector> ensemble(Map<String, Double> values) {
    AnomalyDetectorConfig config =
        AnomalyDetectorConfig.builder()
            .history((int) get(values, "history"))
            .warmUp((int) get(values, "warmUp"))
            .quietPoints((int) get(values, "quietPoints"))
            .build();
    DetectorTuning t =
        new DetectorTuning(
            get(values, "alarm"),
            get(values, "rangeRelax"),
            get(values, "rangeScale"),
            DetectorTuning.DEFAULTS.rangeMinSd(),
            get(values, "rangeLevel"),
            get(values, "medianRelax"),
            get(values, "medianScale"),
            DetectorTuning.DEFAULTS.medianMinSd(),
            get(values, "medianLevel"),
            (int) get(values, "cusumHorizon"),
            get(values, "cusumSlack"),
            get(values, "cusumScale"),
            DetectorTuning.DEFAULTS.cusumMinSd(),
            get(values, "cusumLevel"));
    return () -> config.newDetector(t);
  }

  private static double get(Map<String, Double> values, String name) {
    Double v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("values must name " + name + ", but were " + values);
    }
    return v;
  }
}
