package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * A fleet window's per-key recorder: {@code footprintBytes()} within 10 % of the heap JOL finds by
 * walking it (less what every key shares: configuration, time source and slot layout). The dense
 * recorder after a minute of samples drained every second: under 80 KB with one stripe at the
 * defaults. The compact one ({@code create}) with 100 distinct values drained every half bucket, as
 * the fleet publisher drains: at most 8 KB, at the defaults (stripes as configured: it starts with
 * one).
 */
class BucketRecorderFootprintTest {
  @Test
  void compact_hundredDistinctValues_holdsAtMostEightKilobytes() throws Exception {
    WindowConfig config = WindowConfig.defaults();
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    BucketRecorder recorder = BucketRecorder.create(config, time);
    SplittableRandom random = new SplittableRandom(7);
    long[] values = new long[100];
    Histogram layout = new Histogram(config.highestTrackableValue(), config.significantDigits());
    Set<Long> slots = new HashSet<>();
    for (int i = 0; i < values.length; ) { // 100 values in 100 distinct slots
      long v = (long) Math.exp(12 + 4 * random.nextDouble());
      if (slots.add(layout.lowestEquivalentValue(v))) {
        values[i++] = v;
      }
    }
    long drained = 0;
    for (int half = 0; half < 120; half++) {
      for (int i = 0; i < 1_000; i++) {
        recorder.record(values[random.nextInt(values.length)]);
      }
      time.advance(Duration.ofMillis(500));
      for (BucketHistogram h : recorder.drain()) {
        drained += h.count();
      }
    }
    assertThat(drained).isEqualTo(120_000);
    long retained = retained(recorder, config, time);
    assertThat((double) recorder.footprintBytes())
        .as("footprintBytes() %,d B, JOL %,d B", recorder.footprintBytes(), retained)
        .isCloseTo(retained, within(0.10 * retained));
    assertThat(retained).isLessThanOrEqualTo(8_192);
  }

  @Test
  void dense_footprintBytes_isWithinTenPercentOfJol() throws Exception {
    WindowConfig config = WindowConfig.builder().stripes(1).build();
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    BucketRecorder recorder = BucketRecorder.dense(config, time);
    SplittableRandom random = new SplittableRandom(7);
    long drained = 0;
    for (int second = 0; second < 60; second++) {
      for (int i = 0; i < 1_000; i++) {
        recorder.record((long) Math.exp(12 + 2 * random.nextDouble()));
      }
      time.advance(Duration.ofSeconds(1));
      for (BucketHistogram h : recorder.drain()) {
        drained += h.count();
      }
    }
    assertThat(drained).isEqualTo(60_000);
    long retained = retained(recorder, config, time);
    assertThat((double) recorder.footprintBytes())
        .as("footprintBytes() %,d B, JOL %,d B", recorder.footprintBytes(), retained)
        .isCloseTo(retained, within(0.10 * retained));
    assertThat(retained).isLessThan(80_000);
  }

  /** What JOL finds the recorder holding, less what every key shares. */
  private static long retained(BucketRecorder recorder, WindowConfig config, Object time)
      throws ReflectiveOperationException {
    Field layout = BucketRecorder.class.getDeclaredField("layout");
    layout.setAccessible(true);
    return GraphLayout.parseInstance(recorder)
        .subtract(GraphLayout.parseInstance(config, time, layout.get(recorder)))
        .totalSize();
  }
}
