package io.ringtail.slo;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The naive exact model of a service level: every event kept with its time, each window's counts
 * taken straight from the definition. A window of length {@code L} read at {@code now} holds the
 * events timed in {@code [(floor(now / w) - 59) * w, now]}, {@code w = floor(L / 60)}: its live
 * partial bucket and the 59 complete ones before it. Events must be added in time order (the model
 * finds a window's first event by binary search, and counts by prefix sums).
 */
final class ExactSloModel {
  private final ServiceLevelConfig config;
  private final List<Objective> objectives;
  private long[] times = new long[1024];

  /** Per objective, the good events among the first {@code i}: {@code good[o][i]}. */
  private long[][] good;

  private int size;

  ExactSloModel(ServiceLevelConfig config) {
    this.config = config;
    this.objectives = config.objectives();
    this.good = new long[objectives.size()][1025];
  }

  void add(long timeNanos, long latencyNanos, boolean failed) {
    if (size > 0 && timeNanos - times[size - 1] < 0) {
      throw new IllegalArgumentException("events must come in time order");
    }
    if (size == times.length) {
      times = Arrays.copyOf(times, size * 2);
      for (int o = 0; o < good.length; o++) {
        good[o] = Arrays.copyOf(good[o], size * 2 + 1);
      }
    }
    times[size] = timeNanos;
    for (int o = 0; o < good.length; o++) {
      good[o][size + 1] = good[o][size] + (isGood(objectives.get(o), latencyNanos, failed) ? 1 : 0);
    }
    size++;
  }

  private static boolean isGood(Objective o, long latencyNanos, boolean failed) {
    return switch (o.kind()) {
      case LATENCY -> latencyNanos <= o.threshold().orElseThrow().toNanos();
      case AVAILABILITY -> !failed;
    };
  }

  /** The counts of objective {@code o} over {@code window} read at {@code now}. */
  EventCounts counts(int o, Duration window, long now) {
    long w = window.toNanos() / 60;
    long start = (Math.floorDiv(now, w) - 59) * w;
    int from = firstAtOrAfter(start);
    int to = firstAtOrAfter(now + 1);
    return new EventCounts(good[o][to] - good[o][from], to - from);
  }

  /** Every event's counts for objective {@code o}. */
  EventCounts recorded(int o) {
    return new EventCounts(good[o][size], size);
  }

  double burnRate(int o, Duration window, long now) {
    EventCounts c = counts(o, window, now);
    if (c.total() == 0) {
      return Double.NaN;
    }
    return ((double) (c.total() - c.good()) / c.total()) / (1 - objectives.get(o).target());
  }

  double sli(int o, long now) {
    EventCounts c = counts(o, config.period(), now);
    return c.total() == 0 ? Double.NaN : (double) c.good() / c.total();
  }

  double budgetRemaining(int o, long now) {
    double burn = burnRate(o, config.period(), now);
    return Double.isNaN(burn) ? 1.0 : 1.0 - burn;
  }

  boolean firing(int o, BurnRateAlert alert, long now) {
    return burnRate(o, alert.longWindow(), now) > alert.factor()
        && burnRate(o, alert.shortWindow(), now) > alert.factor();
  }

  private int firstAtOrAfter(long t) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (times[mid] - t < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
