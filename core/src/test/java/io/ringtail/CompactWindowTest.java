package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What only the compact window promises: memory that follows what it holds. */
class CompactWindowTest {

  @Test
  void footprint_growsWithDistinctValues_andFallsBackWhenTheyExpire() {
    ManualTimeSource time = new ManualTimeSource();
    CompactWindow window =
        CompactWindow.create(
            WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(12).build(), time);
    long empty = window.footprintBytes();
    window.record(1_000);
    long one = window.footprintBytes();
    for (int i = 0; i < 1_000; i++) {
      window.record(1_000L * i * i);
    }
    long many = window.footprintBytes();
    assertThat(empty).isLessThan(200);
    assertThat(one).isLessThan(empty + 150);
    assertThat(many).isGreaterThan(one + 1_000L * 12 / 2);
    assertThat(many).isLessThan(one + 1_000L * 12 * 2);

    time.advance(Duration.ofSeconds(60));
    assertThat(window.snapshot().isEmpty()).isTrue();
    assertThat(window.footprintBytes()).isEqualTo(empty);
  }

  @Test
  void repeatedValues_doNotGrowTheBucket() {
    ManualTimeSource time = new ManualTimeSource();
    CompactWindow window = CompactWindow.create(WindowConfig.defaults(), time);
    window.record(42);
    long one = window.footprintBytes();
    for (int i = 0; i < 10_000; i++) {
      window.record(42);
    }
    assertThat(window.footprintBytes()).isEqualTo(one);
    assertThat(window.snapshot().count()).isEqualTo(10_001);
  }
}
