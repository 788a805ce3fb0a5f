package io.ringtail.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The workbook's alerts on a 99.9 % availability objective under steady traffic (10 events a
 * second): after three quiet days, a fault fails a fraction of events (burn rate {@code b}) for
 * three days and an hour, then traffic is healthy again. Each alert whose factor {@code b} exceeds
 * must start holding within its detection time {@code factor × longWindow / b}, no earlier than a
 * window one bucket short would allow, and stop within its reset time {@code shortWindow × (1 -
 * factor / b)} after recovery, no earlier than a short window one bucket short would allow; an
 * alert whose factor {@code b} does not exceed never holds. The status is read every second around
 * those moments, so each bound carries one second of reading plus the spacing of failed events.
 */
class BurnRateAlertTimingTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long SPACING = SECOND / 10;
  private static final long HOUR = 3600 * SECOND;
  private static final long DAY = 24 * HOUR;

  static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("checkout").availability("available", 0.999).build();

  /** Steady traffic into a service level, a failed fraction of it spread evenly. */
  static final class Traffic {
    final ManualTimeSource time = new ManualTimeSource(7 * SECOND + 123_456_789);
    final ServiceLevel slo = ServiceLevel.inProcess(CONFIG, time);
    long nextEvent = time.nanoTime();
    long index;
    double failing;

    /** Records every event due up to {@code t}, then moves the clock to {@code t}. */
    void runTo(long t) {
      while (nextEvent - t <= 0) {
        time.set(nextEvent);
        boolean failed = (long) ((index + 1) * failing) > (long) (index * failing);
        slo.record(50_000_000, failed);
        index++;
        nextEvent += SPACING;
      }
      time.set(t);
    }

    ObjectiveStatus status() {
      return slo.status().objective("available");
    }
  }

  @ParameterizedTest(name = "burn rate {0}")
  @ValueSource(doubles = {1000, 20, 10, 2})
  void alerts_holdWithinTheirDetectionTime_andStopWithinTheirResetTime(double burnRate) {
    Traffic traffic = new Traffic();
    double fraction = burnRate * 0.001;
    long gap = (long) (SPACING / fraction); // between two failed events
    List<BurnRateAlert> alerts = CONFIG.alerts();

    // three quiet days: nothing holds
    long start = traffic.time.nanoTime();
    for (long t = start; t - start < 3 * DAY + HOUR; t += HOUR) {
      traffic.runTo(t);
      assertThat(traffic.status().firing()).isEmpty();
    }
    long faultStart = traffic.time.nanoTime() + 1_234_567;
    traffic.runTo(faultStart);
    traffic.failing = fraction;
    Map<String, Long> fired = watch(traffic, faultStart, 3 * DAY + HOUR, true);
    long faultEnd = traffic.time.nanoTime();
    traffic.failing = 0;
    Map<String, Long> reset = watch(traffic, faultEnd, DAY, false);

    for (BurnRateAlert a : alerts) {
      String name = a.name();
      if (burnRate <= a.factor()) {
        assertThat(fired).as("%s at burn rate %s", name, burnRate).doesNotContainKey(name);
        assertThat(a.detectionTime(burnRate)).isEmpty();
        continue;
      }
      long detection = a.detectionTime(burnRate).orElseThrow().toNanos();
      long earliest = (long) (a.factor() * bucketShort(a.longWindow()) / burnRate);
      assertThat(fired).as("%s fired", name).containsKey(name);
      assertThat(fired.get(name) - faultStart)
          .as("%s: detection %s s", name, detection / 1e9)
          .isBetween(earliest - SECOND - gap, detection + SECOND + gap);

      long resetTime = a.resetTime(burnRate).toNanos();
      long resetEarliest = (long) (bucketShort(a.shortWindow()) * (1 - a.factor() / burnRate));
      assertThat(reset).as("%s reset", name).containsKey(name);
      assertThat(reset.get(name) - faultEnd)
          .as("%s: reset %s s", name, resetTime / 1e9)
          .isBetween(resetEarliest - SECOND - gap, resetTime + SECOND + gap);
    }
  }

  @Test
  void totalOutage_pagesWithinTheWorkbooksFiftyTwoSeconds() {
    BurnRateAlert page = CONFIG.alerts().get(0);
    assertThat(page.detectionTime(1000)).contains(Duration.ofMillis(51_840));
    assertThat(page.resetTime(1000)).isEqualTo(Duration.ofMillis(295_680));
    Traffic traffic = new Traffic();
    traffic.runTo(traffic.time.nanoTime() + 2 * HOUR);
    long faultStart = traffic.time.nanoTime();
    traffic.failing = 1;
    Map<String, Long> fired = watch(traffic, faultStart, 10 * 60 * SECOND, true);
    assertThat(fired.get("page-1h") - faultStart).isBetween(50 * SECOND, 53 * SECOND);
  }

  /** A window one bucket (1/60) short: the shortest a bucket-aligned window spans. */
  private static long bucketShort(Duration window) {
    return window.toNanos() - window.toNanos() / 60;
  }

  /**
   * Reads the status every second while an alert may change (every minute otherwise) for {@code
   * length} from {@code from}; when each alert first starts ({@code firing}) or stops holding.
   */
  private static Map<String, Long> watch(Traffic traffic, long from, long length, boolean firing) {
    Map<String, Long> when = new HashMap<>();
    long t = from;
    while (t - from < length) {
      ObjectiveStatus s = traffic.status();
      for (AlertStatus a : s.alerts()) {
        if (a.firing() == firing) {
          when.putIfAbsent(a.alert().name(), t);
        }
      }
      t += soon(t - from, firing) ? SECOND : 60 * SECOND;
      traffic.runTo(t);
    }
    return when;
  }

  /**
   * Within the first 7 hours (detection at the rates tested, resets) or around 1.5 and 3.6 days.
   */
  private static boolean soon(long elapsed, boolean firing) {
    if (elapsed < 7 * HOUR) {
      return true;
    }
    return firing
        && (Math.abs(elapsed - 36 * HOUR) < 2 * HOUR
            || Math.abs(elapsed - (long) (3.6 * HOUR)) < HOUR);
  }
}
