package io.ringtail.anomaly;

/**
 * A streaming anomaly detector over one series: it takes one value at a time (a window's measure at
 * each evaluation) and returns an anomaly score in [0, 1], higher meaning more anomalous.
 *
 * <p>Implementations keep constant state (see {@link #footprintBytes()}), allocate nothing per
 * value, start no thread and never throw on a value: NaN and infinities are ignored (scored 0,
 * leaving the state as it was).
 *
 * <p>Not thread-safe: one detector serves one series, fed from one thread at a time (an alert
 * monitor serialises its evaluations). Get one per series from an {@link AnomalyDetectorConfig}.
 */
public interface AnomalyDetector {

  /** Learns {@code value} and returns how anomalous it is, in [0, 1]; 0 for NaN or an infinity. */
  double score(double value);

  /**
   * The bytes this detector holds, object headers included, as a 64-bit JVM with compressed
   * references lays it out.
   */
  long footprintBytes();
}
