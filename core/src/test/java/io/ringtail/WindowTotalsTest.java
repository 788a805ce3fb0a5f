package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The totals since creation that snapshots carry, against an exact count of what was recorded. */
class WindowTotalsTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder()
          .length(Duration.ofSeconds(10))
          .buckets(5)
          .highestTrackableValue(1_000_000)
          .stripes(2)
          .build();

  private static RollingWindow window(boolean compact, TimeSource time) {
    return compact ? RollingWindow.createCompact(CONFIG, time) : RollingWindow.create(CONFIG, time);
  }

  @ParameterizedTest(name = "compact={0}")
  @ValueSource(booleans = {false, true})
  void randomStream_totalsEqualEverythingRecordedSinceCreation(boolean compact) {
    SplittableRandom random = new SplittableRandom(compact ? 15 : 51);
    for (int run = 0; run < 20; run++) {
      ManualTimeSource time =
          new ManualTimeSource(random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L));
      RollingWindow window = window(compact, time);
      long count = 0;
      long sum = 0;
      long rejected = 0;
      for (int step = 0; step < 2_000; step++) {
        int action = random.nextInt(100);
        if (action < 70) {
          long value =
              random.nextInt(10) == 0
                  ? random.nextLong(-5, 2_000_000)
                  : random.nextLong(0, 1_000_000);
          window.record(value);
          if (value < 0 || value > CONFIG.highestTrackableValue()) {
            rejected++;
          } else {
            count++;
            sum += value;
          }
        } else if (action < 85) {
          time.advanceNanos(random.nextLong(0, 3_000_000_000L));
        } else if (action < 88) {
          time.advance(
              Duration.ofSeconds(random.nextLong(10, 1_000))); // idle gap of a window or more
        } else {
          WindowSnapshot s = window.snapshot();
          WindowTotals totals = s.totals().orElseThrow();
          assertThat(totals).isEqualTo(new WindowTotals(count, sum, rejected));
          assertThat(totals.count()).isGreaterThanOrEqualTo(s.count());
          assertThat(totals.rejected()).isGreaterThanOrEqualTo(s.rejected());
        }
      }
    }
  }

  @Test
  void emptyWindow_hasZeroTotals_andDecodedSnapshotHasNone() {
    ManualTimeSource time = new ManualTimeSource();
    HistogramSnapshot empty = (HistogramSnapshot) window(false, time).snapshot();
    assertThat(empty.totals()).contains(new WindowTotals(0, 0, 0));
    RollingWindow window = window(false, time);
    window.record(7);
    HistogramSnapshot s = (HistogramSnapshot) window.snapshot();
    assertThat(HistogramSnapshot.fromByteArray(s.toByteArray()).totals()).isEmpty();
  }

  @Test
  void merge_addsTotals() {
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow a = window(false, time);
    RollingWindow b = window(true, time);
    a.record(3);
    a.record(-1);
    b.record(4);
    time.advance(Duration.ofMinutes(5));
    b.record(5);
    HistogramSnapshot merged =
        ((HistogramSnapshot) a.snapshot()).merge((HistogramSnapshot) b.snapshot());
    assertThat(merged.count()).isEqualTo(1);
    assertThat(merged.totals()).contains(new WindowTotals(3, 12, 1));
  }

  @RepeatedTest(3)
  void concurrentRecordsAcrossRotationsAndExpiry_totalsMonotoneAndExact() throws Exception {
    check(RollingWindow::create);
    check(RollingWindow::createCompact);
  }

  /**
   * Writers, a clock thread that rotates (and expires whole windows) thousands of times and a
   * snapshotting thread: totals never go backwards, never run ahead of what was recorded, and end
   * exactly at it, though the window itself holds only the last few buckets.
   */
  private static void check(BiFunction<WindowConfig, TimeSource, RollingWindow> factory)
      throws Exception {
    int writers = 3;
    int perWriter = 100_000;
    ManualTimeSource time = new ManualTimeSource(-7_000);
    RollingWindow window =
        factory.apply(
            WindowConfig.builder().length(Duration.ofNanos(4_000)).buckets(4).stripes(2).build(),
            time);
    AtomicLong recorded = new AtomicLong();
    AtomicBoolean writing = new AtomicBoolean(true);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        long value = w + 1;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perWriter; i++) {
                    window.record((i & 255) == 0 ? -1 : value);
                    recorded.incrementAndGet();
                  }
                  return null;
                }));
      }
      futures.add(
          pool.submit(
              () -> {
                start.await();
                while (writing.get()) {
                  time.advanceNanos((recorded.get() & 7) == 0 ? 10_000 : 1_000);
                  Thread.yield();
                }
                return null;
              }));
      futures.add(
          pool.submit(
              () -> {
                start.await();
                WindowTotals last = new WindowTotals(0, 0, 0);
                while (writing.get()) {
                  long floor = recorded.get();
                  WindowTotals t = window.snapshot().totals().orElseThrow();
                  long ceiling = recorded.get() + writers;
                  assertThat(t.count()).isGreaterThanOrEqualTo(last.count());
                  assertThat(t.sum()).isGreaterThanOrEqualTo(last.sum());
                  assertThat(t.rejected()).isGreaterThanOrEqualTo(last.rejected());
                  assertThat(t.count() + t.rejected()).isBetween(floor, ceiling);
                  last = t;
                }
                return null;
              }));
      start.countDown();
      for (int i = 0; i < writers; i++) {
        futures.get(i).get(2, TimeUnit.MINUTES);
      }
      writing.set(false);
      for (Future<?> f : futures) {
        f.get(1, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    long rejectedPerWriter = (perWriter + 255) / 256;
    long acceptedPerWriter = perWriter - rejectedPerWriter;
    time.advance(Duration.ofSeconds(1));
    WindowSnapshot last = window.snapshot();
    assertThat(last.count()).isZero();
    assertThat(last.totals())
        .contains(
            new WindowTotals(
                writers * acceptedPerWriter,
                acceptedPerWriter * (1 + 2 + 3),
                writers * rejectedPerWriter));
  }
}
