package io.ringtail.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyListenerTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final KeyedWindows keyed =
      KeyedWindows.builder()
          .window(WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build())
          .timeSource(time)
          .build();

  @Test
  void aKeyIsReportedWhenItGetsAWindow_withItsFirstSampleAlreadyRecorded() {
    List<String> told = new ArrayList<>();
    assertThat(keyed.addKeyListener(key -> told.add(key + "=" + keyed.snapshot(key).count())))
        .isTrue();
    keyed.record("a", 1);
    keyed.record("a", 2);
    keyed.record("b", 3);
    assertThat(told).containsExactly("a=1", "b=1");

    time.advance(Duration.ofSeconds(11)); // "a" expires: its next sample starts a new window
    keyed.record("a", 4);
    assertThat(told).containsExactly("a=1", "b=1", "a=1");
  }

  @Test
  void aThrowingListener_losesNoSample_andOthersAreStillTold() {
    List<String> told = new ArrayList<>();
    keyed.addKeyListener(
        key -> {
          throw new IllegalStateException("boom");
        });
    keyed.addKeyListener(told::add);
    keyed.record("a", 5);
    assertThat(keyed.snapshot("a").count()).isEqualTo(1);
    assertThat(told).containsExactly("a");
  }

  @Test
  void aNullListener_isRefused() {
    assertThatThrownBy(() -> keyed.addKeyListener(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
  }
}
