package io.ringtail.benchmarks.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * What a service level costs beyond time: nothing allocated per record once the JIT has compiled
 * the path, rotations included (HotSpot's per-thread allocation counter around 300,000 records),
 * and memory of at most 16 KB per objective with the workbook's windows, whose hand-counted {@code
 * footprintBytes()} is within 10 % of JOL's walk of the object graph (the configuration and the
 * time source, which the service level only refers to, left out). No timing is asserted.
 */
class SloCostTest {
  private static final int WARM_UP_ROUNDS = 10;
  private static final int RECORDS = 300_000;
  private static final long SLACK_BYTES = 256;
  private static final long[] VALUES = Latencies.logNormal(1 << 12, 100_000_000, 1.0, 5);
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @BeforeAll
  static void counterIsAvailable() {
    THREADS.setThreadAllocatedMemoryEnabled(true);
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
  }

  @Test
  void recordAt_allocatesNothing_rotationsIncluded() {
    ManualTimeSource time = new ManualTimeSource();
    ServiceLevel slo = ServiceLevel.inProcess(SloRecordBenchmark.CONFIG, time);
    for (int i = 0; i < WARM_UP_ROUNDS; i++) {
      loop(slo, time);
    }
    long before = THREADS.getCurrentThreadAllocatedBytes();
    loop(slo, time);
    long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(bytes).as("over %,d records", RECORDS).isLessThanOrEqualTo(SLACK_BYTES);
    assertThat(slo.status().objective("fast").recorded().total())
        .isEqualTo((WARM_UP_ROUNDS + 1L) * RECORDS);
  }

  /** A record every 50 ms of the time source: a rotation every 100 records. */
  private static void loop(ServiceLevel slo, ManualTimeSource time) {
    for (int i = 0; i < RECORDS; i++) {
      long v = VALUES[i & (VALUES.length - 1)];
      slo.recordAt(v, (v & 1023) == 0, time.advanceNanos(50_000_000).nanoTime());
    }
  }

  @Test
  void footprint_isAtMostSixteenKilobytesPerObjective_andWithinTenPercentOfJol() {
    ServiceLevelConfig one =
        ServiceLevelConfig.builder("one").latency("fast", Duration.ofMillis(300), 0.99).build();
    ServiceLevelConfig sixteen = sixteenObjectives();
    for (ServiceLevelConfig config :
        new ServiceLevelConfig[] {one, SloRecordBenchmark.CONFIG, sixteen}) {
      ManualTimeSource time = new ManualTimeSource();
      ServiceLevel slo = ServiceLevel.inProcess(config, time);
      loop(slo, time);
      long jol =
          GraphLayout.parseInstance(slo)
              .subtract(GraphLayout.parseInstance(config, time))
              .totalSize();
      int objectives = config.objectives().size();
      System.out.printf(
          "%s: %d objectives, %d windows: footprintBytes() %d B, JOL %d B, %d B per objective%n",
          config.name(),
          objectives,
          config.windows().size(),
          slo.footprintBytes(),
          jol,
          jol / objectives);
      assertThat((double) slo.footprintBytes()).isCloseTo(jol, within(0.10 * jol));
      assertThat(jol / objectives).isLessThanOrEqualTo(16 * 1024);
    }
  }

  /** The most objectives a service level takes, on the workbook's windows. */
  private static ServiceLevelConfig sixteenObjectives() {
    ServiceLevelConfig.Builder b =
        ServiceLevelConfig.builder("sixteen").alerts(BurnRateAlert.workbook());
    for (int i = 0; i < ServiceLevelConfig.MAX_OBJECTIVES; i++) {
      b.latency("o" + i, Duration.ofMillis(100 + 10 * i), 0.99);
    }
    return b.build();
  }
}
