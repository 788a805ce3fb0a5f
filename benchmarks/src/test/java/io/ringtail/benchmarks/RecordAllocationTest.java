package io.ringtail.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CI allocation guard: Ringtail's record path must allocate nothing. Counts the bytes the
 * current thread allocates (HotSpot's per-thread counter) around a few hundred thousand records,
 * after enough warm-up for the JIT to compile the path. No timing is asserted.
 */
class RecordAllocationTest {
  private static final int WARM_UP_ROUNDS = 10;
  private static final int RECORDS = 300_000;
  /** Whole-run slack: far below one allocation per thousand records. */
  private static final long SLACK_BYTES = 256;
  private static final long[] VALUES = Latencies.logNormal(1 << 12, 1_000_000, 1.0, 11);
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static Object sink;

  @BeforeAll
  static void counterIsAvailable() {
    THREADS.setThreadAllocatedMemoryEnabled(true);
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
  }

  @Test
  void record_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    assertThat(steadyStateBytes(() -> recordLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  @Test
  void recordAt_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    long at = window.timeSource().nanoTime();
    assertThat(steadyStateBytes(() -> recordAtLoop(window, at))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  @Test
  void recordElapsedSince_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    assertThat(steadyStateBytes(() -> elapsedLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  @Test
  void record_rejectedSamples_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    assertThat(steadyStateBytes(() -> rejectLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().rejected()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  /**
   * Rotation in steady state: a bucket every 1,000 records, each bucket seeing the same values,
   * so once every sealed bucket of the ring has been used its storage is reused, not regrown.
   */
  @Test
  void record_rotatingEveryThousandRecords_allocatesNothing() {
    ManualTimeSource time = new ManualTimeSource();
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();
    RollingWindow window = RollingWindow.create(config, time);
    long width = config.bucketWidth().toNanos();
    assertThat(steadyStateBytes(() -> rotatingLoop(window, time, width))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo(10_000L);
  }

  /** The guard itself can fail: an allocating path is measured at what it allocates. */
  @Test
  void steadyStateBytes_allocatingPath_countsEveryAllocation() {
    long bytes = steadyStateBytes(RecordAllocationTest::allocatingLoop);
    assertThat(bytes).isGreaterThanOrEqualTo(16L * RECORDS);
  }

  private static long steadyStateBytes(Runnable loop) {
    for (int i = 0; i < WARM_UP_ROUNDS; i++) {
      loop.run();
    }
    long before = THREADS.getCurrentThreadAllocatedBytes();
    loop.run();
    return THREADS.getCurrentThreadAllocatedBytes() - before;
  }

  private static void recordLoop(RollingWindow window) {
    for (int i = 0; i < RECORDS; i++) {
      window.record(VALUES[i & (VALUES.length - 1)]);
    }
  }

  private static void recordAtLoop(RollingWindow window, long at) {
    for (int i = 0; i < RECORDS; i++) {
      window.recordAt(VALUES[i & (VALUES.length - 1)], at);
    }
  }

  private static void elapsedLoop(RollingWindow window) {
    for (int i = 0; i < RECORDS; i++) {
      window.recordElapsedSince(window.timeSource().nanoTime() - VALUES[i & (VALUES.length - 1)]);
    }
  }

  private static void rejectLoop(RollingWindow window) {
    for (int i = 0; i < RECORDS; i++) {
      window.record(-1 - (i & 7));
    }
  }

  private static void rotatingLoop(RollingWindow window, ManualTimeSource time, long width) {
    for (int i = 0; i < RECORDS; i++) {
      if (i % 1000 == 0) {
        time.advanceNanos(width);
      }
      window.record(VALUES[i % 1000]);
    }
  }

  private static void allocatingLoop() {
    for (int i = 0; i < RECORDS; i++) {
      sink = new long[] {VALUES[i & (VALUES.length - 1)]};
    }
  }
}
