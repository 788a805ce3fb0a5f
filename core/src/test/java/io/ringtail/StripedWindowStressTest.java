package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.internal.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Writers, a clock that forces thousands of rotations and a snapshotting thread, all at once. The
 * window is long enough that nothing expires during the run, so every snapshot must be a monotone,
 * never-overshooting view and the last one must hold exactly what was recorded: a sample lost or
 * counted twice at any rotation would show.
 */
class StripedWindowStressTest {
  private static final int RECORDS_PER_WRITER = 200_000;
  private static final int ROTATIONS = 5_000;

  @RepeatedTest(3)
  void recordsAcrossForcedRotations_areNeitherLostNorDoubled() throws Exception {
    recordAcrossForcedRotations(4, 2, 2);
  }

  /**
   * Eight writers start on one stripe and move to another every few hundred records (as a thread
   * does when it meets contention), while the stripes double up to 16 between rotations and
   * snapshots draining them.
   */
  @RepeatedTest(3)
  void writersMovingBetweenGrowingStripes_loseNothing() throws Exception {
    StripedWindow window = recordAcrossForcedRotations(8, 1, 16);
    assertThat(window.stripeCount()).as("stripes grew").isEqualTo(16);
  }

  private static StripedWindow recordAcrossForcedRotations(
      int writers, int stripes, int growthBound) throws Exception {
    boolean moving = growthBound > stripes;
    ManualTimeSource time = new ManualTimeSource(-1_000);
    WindowConfig config =
        WindowConfig.builder()
            .length(Duration.ofNanos(2L * ROTATIONS * 1_000))
            .buckets(2 * ROTATIONS)
            .stripes(stripes)
            .build();
    StripedWindow window = new StripedWindow(config, time, growthBound);
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
                  for (int i = 0; i < RECORDS_PER_WRITER; i++) {
                    window.record(value);
                    if ((i & 1023) == 0) {
                      window.record(-1);
                    }
                    if (moving && i % 300 == 0) {
                      Probe.current().rehash();
                    }
                    recorded.incrementAndGet();
                  }
                  return null;
                }));
      }
      futures.add(
          pool.submit(
              () -> {
                start.await();
                long step = (long) writers * RECORDS_PER_WRITER / ROTATIONS;
                for (int r = 1; r <= ROTATIONS; r++) {
                  while (recorded.get() < r * step - step / 2 && writing.get()) {
                    Thread.onSpinWait();
                  }
                  time.advanceNanos(1_000);
                  if (moving && r % 500 == 0) {
                    growStripes(window);
                  }
                }
                return null;
              }));
      futures.add(
          pool.submit(
              () -> {
                start.await();
                long lastCount = 0;
                while (writing.get()) {
                  long floor = recorded.get();
                  WindowSnapshot s = window.snapshot();
                  long ceiling = recorded.get() + writers;
                  assertThat(s.count())
                      .isGreaterThanOrEqualTo(Math.max(floor, lastCount))
                      .isLessThanOrEqualTo(ceiling);
                  assertThat(s.sum()).isBetween(floor, (long) writers * ceiling);
                  lastCount = s.count();
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
    assertThat(time.nanoTime())
        .as("every rotation happened")
        .isEqualTo(-1_000 + ROTATIONS * 1_000L);
    WindowSnapshot last = window.snapshot();
    assertThat(last.count()).isEqualTo((long) writers * RECORDS_PER_WRITER);
    long values = (long) writers * (writers + 1) / 2;
    assertThat(last.sum()).isEqualTo(RECORDS_PER_WRITER * values);
    assertThat(last.min()).isEqualTo(1);
    assertThat(last.max()).isEqualTo(writers);
    assertThat(last.rejected()).isEqualTo((long) writers * (RECORDS_PER_WRITER / 1024 + 1));
    return window;
  }

  private static void growStripes(StripedWindow window) {
    window.growStripesNow();
  }

  @RepeatedTest(3)
  void snapshotsDuringRotations_areSelfConsistent() throws Exception {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000L);
    RollingWindow window =
        RollingWindow.create(
            WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).stripes(2).build(),
            time);
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        writers.add(
            pool.submit(
                () -> {
                  for (long i = 1; !done.get(); i++) {
                    window.record(i * 10);
                  }
                  return null;
                }));
      }
      for (int s = 0; s < 20_000; s++) {
        if (s % 2 == 0) {
          time.advance(Duration.ofMillis(300));
        }
        WindowSnapshot snapshot = window.snapshot();
        if (snapshot.isEmpty()) {
          assertThat(snapshot.min()).isNaN();
          continue;
        }
        assertThat(snapshot.min()).isLessThanOrEqualTo(snapshot.max()).isGreaterThanOrEqualTo(10);
        assertThat(snapshot.mean()).isBetween(snapshot.min(), snapshot.max());
        assertThat(snapshot.valueAtPercentile(50)).isBetween(snapshot.min(), snapshot.max());
      }
      done.set(true);
      for (Future<?> f : writers) {
        f.get(1, TimeUnit.MINUTES);
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
  }
}
