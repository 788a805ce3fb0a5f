package io.ringtail.redis;

import io.ringtail.internal.Checks;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.ServiceLevelConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a fleet service level lays its windows out on fleet histogram windows ("tiers"): each tier is
 * one keyed fleet window of one bucket width, whose summaries carry the totals of every service
 * level window it serves as a {@linkplain RedisKeyedHistogramWindows.Builder#summarySpans span}.
 *
 * <p>Windows are taken shortest first. A window opens a tier of buckets of 1/{@value #BUCKETS} of
 * its length; each longer window joins the newest tier while it is a whole number of that tier's
 * buckets, at most {@value #MAX_BUCKETS} of them, and the tier serves fewer than {@value
 * RedisKeyedHistogramWindows#MAX_SUMMARY_SPANS} windows; otherwise it opens the next tier. So every
 * window is at least {@value #BUCKETS} buckets of its tier: read at {@code now}, it covers its live
 * partial bucket and the complete buckets before it, between 59/60 of its length and its length, as
 * an in-process service level's window does. The workbook's windows over 30 days make four tiers: 5
 * s buckets for 5m and 30m, 1 min for 1h and 6h, 72 min for 3d, 12 h for the period.
 *
 * <p>Immutable.
 */
final class ServiceLevelTiers {
  /** Buckets of the shortest window of a tier: {@value}. */
  static final int BUCKETS = 60;

  /** The most buckets of a tier: {@value}. */
  static final int MAX_BUCKETS = 360;

  /** One tier: its bucket width, and the windows it serves (the longest is its length). */
  record Tier(Duration width, List<Duration> windows) {
    Duration length() {
      return windows.get(windows.size() - 1);
    }

    int buckets() {
      return (int) (length().toNanos() / width.toNanos());
    }
  }

  private ServiceLevelTiers() {}

  /**
   * The tiers of {@code config}'s windows.
   *
   * @throws IllegalArgumentException naming the field (period, an alert's window) that is not a
   *     whole multiple of 60 ms
   */
  static List<Tier> of(ServiceLevelConfig config) {
    List<Tier> tiers = new ArrayList<>();
    long width = 0;
    List<Duration> serving = new ArrayList<>();
    for (Duration w : config.windows()) {
      long nanos = w.toNanos();
      if (width > 0
          && nanos % width == 0
          && nanos / width <= MAX_BUCKETS
          && serving.size() < RedisKeyedHistogramWindows.MAX_SUMMARY_SPANS) {
        serving.add(w);
        continue;
      }
      if (nanos % (BUCKETS * 1_000_000L) != 0) {
        throw Checks.invalid(
            field(config, w),
            "a whole multiple of 60 ms in a fleet service level (60 buckets of whole milliseconds)",
            w);
      }
      if (width > 0) {
        tiers.add(new Tier(Duration.ofNanos(width), List.copyOf(serving)));
      }
      width = nanos / BUCKETS;
      serving = new ArrayList<>(List.of(w));
    }
    tiers.add(new Tier(Duration.ofNanos(width), List.copyOf(serving)));
    return List.copyOf(tiers);
  }

  /** The config's field that holds {@code window}: the period or an alert's window. */
  private static String field(ServiceLevelConfig config, Duration window) {
    if (config.period().equals(window)) {
      return "period";
    }
    for (BurnRateAlert a : config.alerts()) {
      if (a.longWindow().equals(window)) {
        return "alerts[" + a.name() + "].longWindow";
      }
      if (a.shortWindow().equals(window)) {
        return "alerts[" + a.name() + "].shortWindow";
      }
    }
    return "window";
  }
}
