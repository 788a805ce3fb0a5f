package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A snapshot allocates in proportion to the histogram slots that hold samples, not to the range
 * between its min and max: two samples 1 µs and 1 h apart cost what two samples 1 ns apart cost.
 * Counts the bytes the current thread allocates (HotSpot's per-thread counter) over many snapshots,
 * after a warm-up for the JIT. No timing is asserted.
 */
class SnapshotAllocationTest {
  private static final int WARM_UP = 20_000;
  private static final int SNAPSHOTS = 2_000;

  /**
   * Per snapshot: the few small arrays a sparse form (and the compact window's merge of its buckets
   * by slot) takes beyond a dense one of two slots; the range between 1 µs and 1 h spans about
   * 4,000 slots, 32 KB densely.
   */
  private static final long SLACK_BYTES = 256;

  private static final long MICROSECOND = 1_000;
  private static final long HOUR = 3_600_000_000_000L;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static double sink;

  @BeforeAll
  static void counterIsAvailable() {
    THREADS.setThreadAllocatedMemoryEnabled(true);
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"striped", "compact"})
  void snapshot_ofTwoSamplesFarApart_allocatesAsMuchAsOfTwoClose(String kind) {
    BiFunction<WindowConfig, TimeSource, RollingWindow> create =
        kind.equals("striped") ? RollingWindow::create : RollingWindow::createCompact;
    RollingWindow far = create.apply(WindowConfig.defaults(), new ManualTimeSource());
    far.record(MICROSECOND);
    far.record(HOUR);
    RollingWindow close = create.apply(WindowConfig.defaults(), new ManualTimeSource());
    close.record(MICROSECOND);
    close.record(MICROSECOND + 1);

    long farBytes = bytesPerSnapshot(far);
    long closeBytes = bytesPerSnapshot(close);

    assertThat(farBytes)
        .as("%s: far apart %s B, close together %s B", kind, farBytes, closeBytes)
        .isLessThanOrEqualTo(closeBytes + SLACK_BYTES);
    assertThat(far.snapshot().valueAtPercentile(100)).isEqualTo(HOUR);
    assertThat(far.snapshot().valueAtPercentile(50)).isBetween(1_000.0, 1_010.0);
  }

  private static long bytesPerSnapshot(RollingWindow window) {
    for (int i = 0; i < WARM_UP; i++) {
      sink += window.snapshot().valueAtPercentile(95);
    }
    long thread = Thread.currentThread().getId();
    long before = THREADS.getThreadAllocatedBytes(thread);
    for (int i = 0; i < SNAPSHOTS; i++) {
      sink += window.snapshot().valueAtPercentile(95);
    }
    return (THREADS.getThreadAllocatedBytes(thread) - before) / SNAPSHOTS;
  }
}
