package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ManualTimeSourceTest {

  @Test
  void advance_movesByTheAmount_eitherWay_andWrapsLikeNanoTime() {
    ManualTimeSource time = new ManualTimeSource(Long.MAX_VALUE - 1);
    time.advance(Duration.ofNanos(3));
    assertThat(time.nanoTime()).isEqualTo(Long.MIN_VALUE + 1);
    time.advance(Duration.ofNanos(-2));
    assertThat(time.nanoTime()).isEqualTo(Long.MAX_VALUE);
    time.advance(Duration.ofNanos(Long.MAX_VALUE));
    assertThat(time.nanoTime()).isEqualTo(-2);
  }

  @Test
  void advance_byMoreThanALongOfNanos_isRejectedNamingTheAmount_andMovesNothing() {
    ManualTimeSource time = new ManualTimeSource(5);
    assertThatThrownBy(() -> time.advance(Duration.ofDays(365L * 300)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("amount must be within")
        .hasMessageEndingWith("but was PT2628000H");
    assertThatThrownBy(() -> time.advance(Duration.ofSeconds(Long.MIN_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("amount must be within");
    assertThatThrownBy(() -> time.advance(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("amount");
    assertThat(time.nanoTime()).isEqualTo(5);
  }
}
