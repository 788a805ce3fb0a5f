package io.ringtail.benchmarks.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.anomaly.AnomalyDetector;
import io.ringtail.anomaly.AnomalyDetectorConfig;
import io.ringtail.anomaly.AnomalyDetectorConfig.Method;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.openjdk.jol.info.GraphLayout;

/**
 * What a detector costs beyond time: nothing allocated per score once the JIT has compiled the path
 * (HotSpot's per-thread allocation counter around 300,000 scores, as {@code RecordAllocationTest}
 * measures records), and state of at most 2 KiB whose hand-counted {@code footprintBytes()} is
 * within 10 % of JOL's walk of the object graph. No timing is asserted.
 */
class AnomalyDetectorCostTest {
  private static final int WARM_UP_ROUNDS = 10;
  private static final int SCORES = 300_000;
  private static final long SLACK_BYTES = 256;
  private static final double[] VALUES = AnomalyBenchmark.series(1 << 14, 9);
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static double sink;

  @BeforeAll
  static void counterIsAvailable() {
    THREADS.setThreadAllocatedMemoryEnabled(true);
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
  }

  private static AnomalyDetector detector(Method method, int history) {
    return AnomalyDetectorConfig.builder().method(method).history(history).build().newDetector();
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void score_allocatesNothing(Method method) {
    AnomalyDetector d = detector(method, 64);
    for (int i = 0; i < WARM_UP_ROUNDS; i++) {
      loop(d);
    }
    long before = THREADS.getCurrentThreadAllocatedBytes();
    loop(d);
    long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(bytes).as("%s over %,d scores", method, SCORES).isLessThanOrEqualTo(SLACK_BYTES);
  }

  @ParameterizedTest
  @EnumSource(Method.class)
  void footprintBytes_isWithinTenPercentOfJol_andAtMostTwoKiB(Method method) {
    for (int history : new int[] {8, 64, 96}) {
      AnomalyDetector d = detector(method, history);
      loop(d);
      long jol = GraphLayout.parseInstance(d).totalSize();
      assertThat((double) d.footprintBytes())
          .as(
              "%s, history %d: footprintBytes() %d B, JOL %d B",
              method, history, d.footprintBytes(), jol)
          .isCloseTo(jol, within(0.10 * jol));
      assertThat(jol).isLessThanOrEqualTo(2048);
    }
  }

  private static void loop(AnomalyDetector d) {
    double s = 0;
    for (int i = 0; i < SCORES; i++) {
      s += d.score(VALUES[i & (VALUES.length - 1)]);
    }
    sink = s;
  }
}
