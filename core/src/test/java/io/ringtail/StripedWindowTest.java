package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.testkit.RollingWindowContract;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Edge cases of the in-process window that the shared contract does not pin down. */
class StripedWindowTest {
  private static final long SECOND = Duration.ofSeconds(1).toNanos();

  private final ManualTimeSource time = new ManualTimeSource(42 * SECOND);
  private final RollingWindow window = RollingWindow.create(WindowConfig.defaults(), time);

  @Test
  void bucketEdges_sampleStaysExactlyUntilItsBucketLeaves() {
    time.set(100 * SECOND);
    window.record(1);
    time.set(100 * SECOND + 59 * SECOND + SECOND - 1);
    assertThat(window.snapshot().count()).isEqualTo(1);
    time.set(160 * SECOND);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isZero();
    assertThat(s.startNanos()).isEqualTo(101 * SECOND);
  }

  @Test
  void jumpOfExactlyOneBucket_keepsBothBuckets() {
    time.set(100 * SECOND);
    window.record(1);
    time.advanceNanos(SECOND);
    window.record(2);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.startNanos()).isEqualTo(42 * SECOND);
    assertThat(s.endNanos()).isEqualTo(101 * SECOND);
  }

  @Test
  void idleForYears_catchesUpAndStaysExact() {
    window.record(5);
    for (long gap :
        new long[] {
          Duration.ofHours(1).toNanos(),
          Duration.ofDays(7).toNanos(),
          Duration.ofDays(365 * 100).toNanos(),
          Long.MAX_VALUE / 2
        }) {
      time.advanceNanos(gap);
      assertThat(window.snapshot().isEmpty()).isTrue();
      window.record(gap % 1000);
      assertThat(window.snapshot().count()).isEqualTo(1);
      assertThat(window.snapshot().max()).isEqualTo(gap % 1000);
    }
  }

  @Test
  void timeSteppingBackwards_recordsIntoLiveBucketAndNeverRotatesBack() {
    time.set(100 * SECOND);
    window.record(1);
    time.set(90 * SECOND);
    window.record(2);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.endNanos()).isEqualTo(100 * SECOND);
    time.set(159 * SECOND + SECOND - 1);
    assertThat(window.snapshot().count()).isEqualTo(2);
    time.set(160 * SECOND);
    assertThat(window.snapshot().count()).isZero();
  }

  @Test
  void rangeLimits_acceptZeroAndHighestRejectBeyond() {
    long highest = WindowConfig.defaults().highestTrackableValue();
    window.record(0);
    window.record(highest);
    window.record(highest + 1);
    window.record(Long.MAX_VALUE);
    window.record(-1);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.rejected()).isEqualTo(3);
    assertThat(s.min()).isZero();
    assertThat(s.max()).isEqualTo(highest);
    assertThat(s.valueAtPercentile(100)).isEqualTo(highest);
    assertThat(s.sum()).isEqualTo(highest);
  }

  @Test
  void rejectedCounts_leaveWithTheirBucket() {
    window.record(-1);
    time.advanceNanos(30 * SECOND);
    window.record(-2);
    assertThat(window.snapshot().rejected()).isEqualTo(2);
    time.advanceNanos(31 * SECOND);
    assertThat(window.snapshot().rejected()).isEqualTo(1);
    time.advanceNanos(60 * SECOND);
    assertThat(window.snapshot().rejected()).isZero();
  }

  @Test
  void snapshot_isImmutable() {
    window.record(10);
    WindowSnapshot before = window.snapshot();
    window.record(1_000);
    time.advanceNanos(120 * SECOND);
    window.record(3);
    assertThat(before.count()).isEqualTo(1);
    assertThat(before.max()).isEqualTo(10);
    assertThat(before.valueAtPercentile(50)).isEqualTo(10);
  }

  @Test
  void recordElapsedSince_recordsTheGapAtTheCurrentReading() {
    long start = time.nanoTime();
    time.advanceNanos(1_234_567);
    window.recordElapsedSince(start);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.max()).isEqualTo(1_234_567);
  }

  @Test
  void percentile_isNearestRankWithinPrecision() {
    for (int v = 1; v <= 100; v++) {
      window.record(v * 1_000_000L);
    }
    WindowSnapshot s = window.snapshot();
    assertThat(s.valueAtPercentile(0)).isEqualTo(1_000_000);
    assertThat(s.valueAtPercentile(50))
        .isCloseTo(50_000_000, org.assertj.core.api.Assertions.within(500_000.0));
    assertThat(s.valueAtPercentile(95))
        .isCloseTo(95_000_000, org.assertj.core.api.Assertions.within(950_000.0));
    assertThat(s.valueAtPercentile(95.5))
        .isCloseTo(96_000_000, org.assertj.core.api.Assertions.within(960_000.0));
    assertThat(s.valueAtPercentile(100)).isEqualTo(100_000_000);
  }

  @Test
  void footprint_ofDefaultWindowFilledAtTenThousandPerSecond_isWellUnderOneMebibyte() {
    RollingWindow w = RollingWindow.create(WindowConfig.builder().stripes(2).build(), time);
    long before = w.footprintBytes();
    SplittableRandom random = new SplittableRandom(1);
    for (int second = 0; second < 60; second++) {
      for (int i = 0; i < 10_000; i++) {
        w.record((long) Math.exp(13 + 0.8 * RollingWindowContract.gaussian(random)));
        time.advanceNanos(100_000);
      }
    }
    assertThat(w.snapshot().count()).isBetween(590_000L, 600_000L);
    long after = w.footprintBytes();
    assertThat(before).isLessThan(after);
    assertThat(after).as("footprint bytes").isLessThan(400 * 1024);
  }

  /**
   * A bucket's storage is sized to what it holds when sealed: after a minute of widely spread
   * samples, a minute of narrow ones brings the footprint back to what narrow samples need.
   */
  @Test
  void footprint_followsWhatTheBucketsHoldNow_notTheMostTheyEverHeld() {
    RollingWindow w = RollingWindow.create(WindowConfig.builder().stripes(2).build(), time);
    SplittableRandom random = new SplittableRandom(3);
    long narrow = recordMinute(w, random, 0.05);
    long wide = recordMinute(w, random, 2.0);
    long narrowAgain = recordMinute(w, random, 0.05);
    assertThat(wide).isGreaterThan(narrow + 60 * 1024);
    assertThat((double) narrowAgain / narrow)
        .as("%,d B, then %,d B, then %,d B", narrow, wide, narrowAgain)
        .isLessThanOrEqualTo(1.05);
  }

  private long recordMinute(RollingWindow w, SplittableRandom random, double sigma) {
    for (int i = 0; i < 60 * 5_000; i++) {
      w.record((long) Math.exp(13 + sigma * RollingWindowContract.gaussian(random)));
      time.advanceNanos(200_000);
    }
    return w.footprintBytes();
  }

  @Test
  void recentSnapshot_answersAsTheSnapshotTakenAtItsRefresh() {
    SplittableRandom random = new SplittableRandom(7);
    for (int second = 0; second < 90; second++) {
      for (int i = 0; i < 1_000; i++) {
        window.record((long) Math.exp(13 + 1.5 * RollingWindowContract.gaussian(random)));
      }
      time.advance(Duration.ofSeconds(1));
      window.record(1);
      WindowSnapshot recent = window.recentSnapshot();
      WindowSnapshot exact = window.snapshot();
      assertThat(recent.count()).isEqualTo(exact.count());
      assertThat(recent.sum()).isEqualTo(exact.sum());
      assertThat(recent.min()).isEqualTo(exact.min());
      assertThat(recent.max()).isEqualTo(exact.max());
      assertThat(recent.startNanos()).isEqualTo(exact.startNanos());
      assertThat(recent.totals()).as("totals since creation").isEqualTo(exact.totals()).isPresent();
      for (double p : new double[] {0, 0.1, 1, 10, 50, 90, 95, 99, 99.9, 99.99, 100}) {
        assertThat(recent.valueAtPercentile(p)).as("p%s", p).isEqualTo(exact.valueAtPercentile(p));
      }
      for (long v : new long[] {0, 1, 100_000, 442_413, 1_000_000, 50_000_000, Long.MAX_VALUE}) {
        assertThat(recent.fractionAbove(v)).as("above %s", v).isEqualTo(exact.fractionAbove(v));
      }
    }
  }

  @Test
  void recentSnapshot_isSharedUntilTheWindowRotates() {
    window.record(10);
    WindowSnapshot first = window.recentSnapshot();
    window.record(20);
    time.advance(Duration.ofMillis(999));
    assertThat(window.recentSnapshot()).isSameAs(first);
    assertThat(first.count()).isEqualTo(1);
    time.advance(Duration.ofMillis(1));
    window.record(30);
    WindowSnapshot next = window.recentSnapshot();
    assertThat(next).isNotSameAs(first);
    assertThat(next.count()).isEqualTo(3);
    assertThat(window.recentSnapshot()).isSameAs(next);
  }

  @Test
  void recentSnapshot_ofEmptyWindow_isEmpty() {
    WindowSnapshot s = window.recentSnapshot();
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.valueAtPercentile(95)).isNaN();
    assertThat(s.fractionAbove(1)).isNaN();
  }
}
