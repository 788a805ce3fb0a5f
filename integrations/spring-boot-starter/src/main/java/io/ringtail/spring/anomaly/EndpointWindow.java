package io.ringtail.spring.anomaly;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.spring.anomaly.EndpointAnomalies.Measure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An endpoint's keys as a window, read-only, for its rules: its snapshot is what the current
 * evaluation read, or (when the read failed) a failure that keeps the rules' state.
 */
final class EndpointWindow implements RollingWindow {
  private final String observation;
  private final KeyedWindows keyed;
  volatile Pooled current; // set for one evaluation, under EndpointAnomalies' lock

  EndpointWindow(String observation, KeyedWindows keyed) {
    this.observation = observation;
    this.keyed = keyed;
  }

  @Override
  public WindowSnapshot snapshot() {
    Pooled s = current;
    if (s == null) {
      throw new Unread(observation);
    }
    return s;
  }

  @Override
  public void record(long value) {
    throw new UnsupportedOperationException("an endpoint's keys are recorded by observations");
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    record(value);
  }

  @Override
  public Duration length() {
    return keyed.windowConfig().length();
  }

  @Override
  public TimeSource timeSource() {
    return keyed.timeSource();
  }

  @Override
  public long footprintBytes() {
    return 0;
  }

  /** The snapshots of one endpoint's keys at one evaluation. */
  static final class Pool {
    static final Pool EMPTY = new Pool();
    final List<WindowSnapshot> parts = new ArrayList<>(2);
    long errors;
    String first; // the least key with samples: the one whose owner evaluates the endpoint

    void add(String key, WindowSnapshot s, boolean error) {
      if (s.count() > 0) {
        first = first == null || key.compareTo(first) < 0 ? key : first;
        parts.add(s);
        errors += error ? s.count() : 0;
      }
    }

    /** The endpoint's keys pooled, with how many of their samples were errors. */
    Pooled snapshot() {
      return new Pooled(parts.isEmpty() ? Empty.INSTANCE : WindowSnapshot.pooled(parts), errors);
    }
  }

  /** An endpoint's keys as one snapshot, and how many of its samples were errors. */
  record Pooled(WindowSnapshot all, long errors) implements WindowSnapshot {
    @Override
    public long count() {
      return all.count();
    }

    @Override
    public long sum() {
      return all.sum();
    }

    @Override
    public long rejected() {
      return all.rejected();
    }

    @Override
    public double min() {
      return all.min();
    }

    @Override
    public double max() {
      return all.max();
    }

    @Override
    public double valueAtPercentile(double percentile) {
      return all.valueAtPercentile(percentile);
    }

    @Override
    public double fractionAbove(long value) {
      return all.fractionAbove(value);
    }

    @Override
    public long startNanos() {
      return all.startNanos();
    }

    @Override
    public long endNanos() {
      return all.endNanos();
    }
  }

  /** No sample: an endpoint none of whose keys holds any now. */
  enum Empty implements WindowSnapshot {
    INSTANCE;

    @Override
    public long count() {
      return 0;
    }

    @Override
    public long sum() {
      return 0;
    }

    @Override
    public long rejected() {
      return 0;
    }

    @Override
    public double min() {
      return Double.NaN;
    }

    @Override
    public double max() {
      return Double.NaN;
    }

    @Override
    public double valueAtPercentile(double percentile) {
      return Double.NaN;
    }

    @Override
    public long startNanos() {
      return 0;
    }

    @Override
    public long endNanos() {
      return 0;
    }
  }

  /**
   * What a rule reads from its endpoint's pooled snapshot: one of the measures. Stateless.
   *
   * @param windowSeconds the window's length, for the rate
   */
  record Read(Measure measure, double windowSeconds) implements io.ringtail.alert.Measure {
    @Override
    public double of(WindowSnapshot s) {
      return switch (measure) {
        case P95 -> s.valueAtPercentile(95);
        case ERROR_RATIO ->
            s.count() == 0 ? Double.NaN : (double) ((Pooled) s).errors() / s.count();
        case RATE -> s.count() / windowSeconds;
      };
    }

    @Override
    public String toString() {
      return measure.label();
    }
  }

  /** A window not read at this evaluation: its rules keep their state. No stack trace. */
  static final class Unread extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unread(String observation) {
      super(observation + " was not read at this evaluation", null, false, false);
    }
  }
}
