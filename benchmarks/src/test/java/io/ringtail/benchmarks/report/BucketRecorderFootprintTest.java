package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.BucketHistogram;
import io.ringtail.BucketRecorder;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * A fleet window's per-key recorder: {@code footprintBytes()} within 10 % of the heap JOL finds by
 * walking it (less what every key shares: configuration, time source and slot layout), after a
 * minute of samples drained every second, and under 80 KB with one stripe at the defaults.
 */
class BucketRecorderFootprintTest {
  @Test
  void footprintBytes_isWithinTenPercentOfJol() throws Exception {
    WindowConfig config = WindowConfig.builder().stripes(1).build();
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    BucketRecorder recorder = BucketRecorder.create(config, time);
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
    Field layout = BucketRecorder.class.getDeclaredField("layout");
    layout.setAccessible(true);
    long retained =
        GraphLayout.parseInstance(recorder)
            .subtract(GraphLayout.parseInstance(config, time, layout.get(recorder)))
            .totalSize();
    assertThat((double) recorder.footprintBytes())
        .as("footprintBytes() %,d B, JOL %,d B", recorder.footprintBytes(), retained)
        .isCloseTo(retained, within(0.10 * retained));
    assertThat(retained).isLessThan(80_000);
  }
}
