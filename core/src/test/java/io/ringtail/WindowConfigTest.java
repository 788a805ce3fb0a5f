package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WindowConfigTest {

  @Test
  void defaults_areSixtySecondsInSixtyBucketsAtTwoDigits() {
    WindowConfig c = WindowConfig.defaults();
    assertThat(c.length()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.buckets()).isEqualTo(60);
    assertThat(c.bucketWidth()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.significantDigits()).isEqualTo(2);
    assertThat(c.lowestDiscernibleValue()).isEqualTo(1);
    assertThat(c.highestTrackableValue()).isEqualTo(Duration.ofHours(1).toNanos());
    assertThat(Integer.bitCount(c.stripes())).isEqualTo(1);
    assertThat(c.stripes()).isBetween(1, 4);
    assertThat(c.countsArrayLength()).isEqualTo(4_608);
  }

  @Test
  void builder_isReusableAndConfigsAreValues() {
    WindowConfig.Builder b = WindowConfig.builder().buckets(12);
    WindowConfig first = b.build();
    WindowConfig second = b.build();
    assertThat(first).isEqualTo(second).hasSameHashCodeAs(second).isNotSameAs(second);
    assertThat(first.toBuilder().buckets(6).build().buckets()).isEqualTo(6);
    assertThat(first.buckets()).isEqualTo(12);
    assertThat(first.toString()).contains("buckets=12");
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 5, 6, 7})
  void stripes_roundUpToPowerOfTwo(int stripes) {
    int built = WindowConfig.builder().stripes(stripes).build().stripes();
    assertThat(Integer.bitCount(built)).isEqualTo(1);
    assertThat(built).isGreaterThanOrEqualTo(stripes).isLessThan(2 * stripes);
  }

  @Test
  void badValues_nameTheParameterAndTheValue() {
    assertRejected(b -> b.buckets(0), "buckets", "0");
    assertRejected(b -> b.buckets(WindowConfig.MAX_BUCKETS + 1), "buckets", String.valueOf(WindowConfig.MAX_BUCKETS + 1));
    assertRejected(b -> b.length(Duration.ZERO), "length", "0");
    assertRejected(b -> b.length(Duration.ofSeconds(-5)), "length", "-5000000000");
    assertRejected(b -> b.length(Duration.ofDays(365 * 300)), "length", "PT");
    assertRejected(b -> b.length(Duration.ofNanos(10)).buckets(3), "length", "3 buckets");
    assertRejected(b -> b.significantDigits(6), "significantDigits", "6");
    assertRejected(b -> b.significantDigits(-1), "significantDigits", "-1");
    assertRejected(b -> b.lowestDiscernibleValue(0), "lowestDiscernibleValue", "0");
    assertRejected(b -> b.lowestDiscernibleValue(1000).highestTrackableValue(1999), "highestTrackableValue", "1999");
    assertRejected(b -> b.stripes(0), "stripes", "0");
    assertRejected(b -> b.stripes(65), "stripes", "65");
    assertThatThrownBy(() -> WindowConfig.builder().length(null)).isInstanceOf(NullPointerException.class);
  }

  private static void assertRejected(UnaryOperator<WindowConfig.Builder> change, String parameter, String value) {
    assertThatThrownBy(() -> change.apply(WindowConfig.builder()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(parameter)
        .hasMessageContaining(value);
  }
}
