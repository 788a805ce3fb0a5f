package io.ringtail.benchmarks.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.keyed.KeyedWindows;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

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

  // These read a time source that stands still: a rotation's cost is the rotating test's, and a
  // wall-clock bucket boundary inside the measurement would make the figure depend on timing.
  @Test
  void record_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), new ManualTimeSource());
    assertThat(steadyStateBytes(() -> recordLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  @Test
  void recordAt_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), new ManualTimeSource());
    long at = window.timeSource().nanoTime();
    assertThat(steadyStateBytes(() -> recordAtLoop(window, at))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  @Test
  void recordElapsedSince_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), new ManualTimeSource());
    assertThat(steadyStateBytes(() -> elapsedLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  @Test
  void record_rejectedSamples_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), new ManualTimeSource());
    assertThat(steadyStateBytes(() -> rejectLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().rejected()).isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  /**
   * Rotation in steady state: a bucket every 1,000 records, each bucket seeing the same values, so
   * once every sealed bucket of the ring has been used its storage is reused, not regrown.
   */
  @Test
  void record_rotatingEveryThousandRecords_allocatesNothing() {
    ManualTimeSource time = new ManualTimeSource();
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();
    RollingWindow window = RollingWindow.create(config, time);
    long width = config.bucketWidth().toNanos();
    assertThat(steadyStateBytes(() -> rotatingLoop(window, time, width)))
        .isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(window.snapshot().count()).isEqualTo(10_000L);
  }

  /**
   * A keyed record on keys already held, through bucket rotations: the key lookup and the compact
   * window's record allocate nothing once every bucket of each key's ring exists.
   */
  @Test
  void keyedRecord_existingKeys_allocatesNothing() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = KeyedWindows.builder().timeSource(time).build();
    String[] keys = new String[64];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = "tenant-" + k;
    }
    long width = windows.windowConfig().bucketWidth().toNanos();
    assertThat(steadyStateBytes(() -> keyedLoop(windows, keys, time, width)))
        .isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(windows.snapshot(keys[0]).count()).isPositive();
  }

  /** A per-request percentile read: no allocation, however often it is called. */
  @Test
  void recentSnapshotPercentile_allocatesNothing() {
    RollingWindow window = RollingWindow.create(WindowConfig.defaults());
    recordLoop(window);
    assertThat(steadyStateBytes(() -> percentileLoop(window))).isLessThanOrEqualTo(SLACK_BYTES);
  }

  /**
   * A limiter decision, on keys with steady traffic, allocates at most the decision it returns (its
   * size measured by JOL): under the limit, then over it, where a denial carries its retry-after.
   */
  @Test
  void rateLimiterDecision_allocatesAtMostTheDecision() {
    assertDecisionBytes(1_000, true);
    assertDecisionBytes(100, false);
  }

  private static void assertDecisionBytes(int limit, boolean allowed) {
    ManualTimeSource time = new ManualTimeSource();
    RateLimiter limiter =
        RateLimiter.inProcess(
            RateLimitConfig.builder()
                .limit(limit)
                .window(Duration.ofSeconds(1))
                .timeSource(time)
                .build(),
            1_000);
    String[] keys = {"tenant-0", "tenant-1", "tenant-2", "tenant-3"};
    RateDecision[] last = new RateDecision[1];
    long bytes =
        steadyStateBytes(
            () -> {
              for (int i = 0; i < RECORDS; i++) {
                time.advanceNanos(1_000_000);
                last[0] = limiter.tryAcquire(keys[i & 3]);
              }
            });
    assertThat(last[0].allowed()).isEqualTo(allowed);
    long decisionBytes = GraphLayout.parseInstance(last[0]).totalSize();
    assertThat(bytes)
        .as("%s decisions of %s B", RECORDS, decisionBytes)
        .isLessThanOrEqualTo(decisionBytes * RECORDS + SLACK_BYTES);
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

  private static void keyedLoop(
      KeyedWindows windows, String[] keys, ManualTimeSource time, long width) {
    for (int i = 0; i < RECORDS; i++) {
      if (i % 5_000 == 0) {
        time.advanceNanos(width);
      }
      windows.record(keys[i & (keys.length - 1)], VALUES[i % 1000]);
    }
  }

  private static void percentileLoop(RollingWindow window) {
    double total = 0;
    for (int i = 0; i < RECORDS; i++) {
      total += window.recentSnapshot().valueAtPercentile(95);
    }
    sink = total;
  }

  private static void allocatingLoop() {
    for (int i = 0; i < RECORDS; i++) {
      sink = new long[] {VALUES[i & (VALUES.length - 1)]};
    }
  }
}
