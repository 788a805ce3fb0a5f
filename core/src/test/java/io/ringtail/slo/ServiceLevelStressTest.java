package io.ringtail.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
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
 * Writers, a clock that forces thousands of rotations, and a thread reading statuses, all at once.
 * The period outlasts the run, so every status must be a monotone, never-overshooting view in which
 * no event's total and bad counts come apart, and the last must hold exactly what was recorded: an
 * event lost or counted twice at any rotation or drain would show.
 */
class ServiceLevelStressTest {
  private static final int RECORDS_PER_WRITER = 200_000;
  private static final int CLOCK_STEPS = 5_000;

  /** Period 10 s; the 1 s and 100 ms windows rotate every 1.67 ms, the clock steps 1 ms. */
  private static final ServiceLevelConfig CONFIG =
      ServiceLevelConfig.builder("stress")
          .latency("fast", Duration.ofMillis(300), 0.99)
          .availability("available", 0.999)
          .period(Duration.ofSeconds(10))
          .alerts(BurnRateAlert.page(14.4, Duration.ofSeconds(1), Duration.ofMillis(100)))
          .build();

  @RepeatedTest(3)
  void recordsAcrossForcedRotations_areNeitherLostNorDoubled() throws Exception {
    run(4, 4, false);
  }

  /** Eight writers hop between stripes while the stripes double up to 16 under them. */
  @RepeatedTest(3)
  void writersMovingBetweenGrowingStripes_loseNothing() throws Exception {
    InProcessServiceLevel slo = run(8, 16, true);
    assertThat(slo.stripeCount()).as("stripes grew").isEqualTo(16);
  }

  private static InProcessServiceLevel run(int writers, int growthBound, boolean moving)
      throws Exception {
    ManualTimeSource time = new ManualTimeSource(-3_000_000);
    InProcessServiceLevel slo = new InProcessServiceLevel(CONFIG, time, growthBound);
    AtomicLong recorded = new AtomicLong();
    AtomicBoolean writing = new AtomicBoolean(true);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < RECORDS_PER_WRITER; i++) {
                    long latency = i % 7 == 0 ? 500_000_000 : 100_000_000;
                    boolean failed = i % 11 == 0;
                    if ((i & 1) == 0) {
                      slo.record(latency, failed);
                    } else {
                      // a reading taken a little earlier, as a late writer has
                      slo.recordAt(latency, failed, time.nanoTime() - 2_000_000);
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
                long step = (long) writers * RECORDS_PER_WRITER / CLOCK_STEPS;
                for (int r = 1; r <= CLOCK_STEPS; r++) {
                  while (recorded.get() < r * step - step / 2 && writing.get()) {
                    Thread.onSpinWait();
                  }
                  time.advanceNanos(1_000_000);
                  if (moving && r % 500 == 0) {
                    slo.growStripes();
                  }
                }
                return null;
              }));
      futures.add(
          pool.submit(
              () -> {
                start.await();
                long last = 0;
                while (writing.get()) {
                  long floor = recorded.get();
                  ServiceLevelStatus s = slo.status(); // throws if bad ever exceeded total
                  long ceiling = recorded.get() + writers;
                  for (ObjectiveStatus o : s.objectives()) {
                    long total = o.recorded().total();
                    assertThat(total).isBetween(Math.max(floor, last), ceiling);
                    assertThat(o.periodCounts()).isEqualTo(o.recorded());
                  }
                  last = s.objectives().get(0).recorded().total();
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
    long total = (long) writers * RECORDS_PER_WRITER;
    long slow = (long) writers * ((RECORDS_PER_WRITER + 6) / 7);
    long failed = (long) writers * ((RECORDS_PER_WRITER + 10) / 11);
    ServiceLevelStatus s = slo.status();
    assertThat(s.objective("fast").recorded()).isEqualTo(new EventCounts(total - slow, total));
    assertThat(s.objective("fast").periodCounts()).isEqualTo(new EventCounts(total - slow, total));
    assertThat(s.objective("available").recorded())
        .isEqualTo(new EventCounts(total - failed, total));
    assertThat(s.objective("available").periodCounts())
        .isEqualTo(new EventCounts(total - failed, total));
    assertThat(time.nanoTime()).isEqualTo(-3_000_000 + CLOCK_STEPS * 1_000_000L);
    return slo;
  }
}
