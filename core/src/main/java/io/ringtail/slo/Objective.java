package io.ringtail.slo;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One objective of a service level: which events are good, and the fraction of events that must be
 * ({@link #target()}, 0.99 for 99 %).
 *
 * <ul>
 *   <li>{@linkplain #latency Latency}: an event is good when its latency is at most the threshold
 *       ({@code <=}, as Prometheus's {@code le}), whether it failed or not; a negative latency
 *       counts as within it.
 *   <li>{@linkplain #availability Availability}: an event is good when it did not fail, whatever
 *       its latency. The caller says whether an event failed.
 * </ul>
 *
 * Each event is judged once, when it is recorded, against the configured threshold: the counts are
 * exact at that threshold, never interpolated from histogram buckets.
 *
 * <p>Immutable and thread-safe; the factories check their arguments at once.
 */
public final class Objective {
  /** What an objective judges. */
  public enum Kind {
    /** Latency at most a threshold. */
    LATENCY,
    /** Not failed. */
    AVAILABILITY
  }

  private final String name;
  private final Kind kind;
  private final Duration threshold;
  private final long thresholdNanos;
  private final double target;

  private Objective(
      String name, Kind kind, Duration threshold, long thresholdNanos, double target) {
    this.name = name;
    this.kind = kind;
    this.threshold = threshold;
    this.thresholdNanos = thresholdNanos;
    this.target = target;
  }

  /**
   * A latency objective named {@code name}: a fraction {@code target} of events at most {@code
   * threshold}.
   *
   * @throws IllegalArgumentException if the name is blank, the threshold not positive, or the
   *     target not strictly between 0 and 1
   */
  public static Objective latency(String name, Duration threshold, double target) {
    Checks.requireNonBlank("name", name);
    long nanos = Checks.requirePositiveNanos("threshold", threshold);
    return new Objective(name, Kind.LATENCY, threshold, nanos, requireTarget(target));
  }

  /**
   * An availability objective named {@code name}: a fraction {@code target} of events not failed.
   *
   * @throws IllegalArgumentException if the name is blank or the target not strictly between 0 and
   *     1
   */
  public static Objective availability(String name, double target) {
    Checks.requireNonBlank("name", name);
    return new Objective(name, Kind.AVAILABILITY, null, Long.MAX_VALUE, requireTarget(target));
  }

  private static double requireTarget(double target) {
    if (!(target > 0.0 && target < 1.0)) {
      throw Checks.invalid("target", "between 0 and 1 exclusive", target);
    }
    return target;
  }

  /** The objective's name, unique in its service level. */
  public String name() {
    return name;
  }

  /** Latency or availability. */
  public Kind kind() {
    return kind;
  }

  /** The fraction of events that must be good, strictly between 0 and 1. */
  public double target() {
    return target;
  }

  /** The error budget as a fraction of events, {@code 1 - target}. */
  public double budget() {
    return 1.0 - target;
  }

  /** A latency objective's threshold; empty for availability. */
  public Optional<Duration> threshold() {
    return Optional.ofNullable(threshold);
  }

  /**
   * Per objective of {@code objectives}, the latency above which an event is bad: its threshold in
   * nanoseconds, or {@code Long.MAX_VALUE} for an availability objective.
   */
  public static long[] latencyLimits(List<Objective> objectives) {
    long[] limits = new long[objectives.size()];
    for (int i = 0; i < limits.length; i++) {
      limits[i] = objectives.get(i).thresholdNanos;
    }
    return limits;
  }

  /**
   * The bits of {@code objectives} (bit {@code i}: objective {@code i}) that a failed event misses.
   */
  public static int failureMask(List<Objective> objectives) {
    int mask = 0;
    for (int i = 0; i < objectives.size(); i++) {
      if (objectives.get(i).kind == Kind.AVAILABILITY) {
        mask |= 1 << i;
      }
    }
    return mask;
  }

  /** Whether an event of this latency, failed or not, is good for this objective. */
  public boolean isGood(long latencyNanos, boolean failed) {
    return kind == Kind.LATENCY ? latencyNanos <= thresholdNanos : !failed;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Objective other
        && name.equals(other.name)
        && kind == other.kind
        && thresholdNanos == other.thresholdNanos
        && Double.compare(target, other.target) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, kind, thresholdNanos, target);
  }

  @Override
  public String toString() {
    return "Objective["
        + name
        + ": "
        + (kind == Kind.LATENCY ? target + " at most " + threshold : target + " not failed")
        + "]";
  }
}
