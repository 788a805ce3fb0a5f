package io.ringtail.anomaly;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The benchmark's handle on the detector's tuned constants, for cross-validation on the NAB corpus:
 * the internal constants ({@code Tuning}, package-private in the library) and the builder's
 * history, warm-up and quiet period, by name. It lives in the library's package, in the benchmarks
 * module only; no artifact of the library holds it.
 *
 * <p>Stateless and thread-safe.
 */
public final class NabTunings {
  private NabTunings() {}

  /** The shipped values, by name, in a fixed order. */
  public static Map<String, Double> defaults() {
    Tuning t = Tuning.DEFAULTS;
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
    Tuning t =
        new Tuning(
            get(values, "alarm"),
            get(values, "rangeRelax"),
            get(values, "rangeScale"),
            Tuning.DEFAULTS.rangeMinSd(),
            get(values, "rangeLevel"),
            get(values, "medianRelax"),
            get(values, "medianScale"),
            Tuning.DEFAULTS.medianMinSd(),
            get(values, "medianLevel"),
            (int) get(values, "cusumHorizon"),
            get(values, "cusumSlack"),
            get(values, "cusumScale"),
            Tuning.DEFAULTS.cusumMinSd(),
            get(values, "cusumLevel"));
    return () -> new StreamingDetector(config, t);
  }

  private static double get(Map<String, Double> values, String name) {
    Double v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("values must name " + name + ", but were " + values);
    }
    return v;
  }
}
