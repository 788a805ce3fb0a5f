package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.HdrHistogram.Histogram;
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
    assertRejected(
        b -> b.buckets(WindowConfig.MAX_BUCKETS + 1),
        "buckets",
        String.valueOf(WindowConfig.MAX_BUCKETS + 1));
    assertRejected(b -> b.length(Duration.ZERO), "length", "0");
    assertRejected(b -> b.length(Duration.ofSeconds(-5)), "length", "PT-5S");
    assertRejected(b -> b.length(Duration.ofDays(365 * 300)), "length", "PT");
    assertThatThrownBy(() -> WindowConfig.builder().length(Duration.ofNanos(10)).buckets(3).build())
        .hasMessage(
            "length must be divisible into 3 buckets of whole nanoseconds, but was PT0.00000001S");
    assertRejected(b -> b.significantDigits(6), "significantDigits", "6");
    assertRejected(b -> b.significantDigits(-1), "significantDigits", "-1");
    assertRejected(b -> b.lowestDiscernibleValue(0), "lowestDiscernibleValue", "0");
    assertRejected(
        b -> b.lowestDiscernibleValue(1000).highestTrackableValue(1999),
        "highestTrackableValue",
        "1999");
    assertRejected(b -> b.stripes(0), "stripes", "0");
    assertRejected(b -> b.stripes(65), "stripes", "65");
    assertThatThrownBy(() -> WindowConfig.builder().length(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("length");
  }

  @Test
  void valueRangesWhoseLayoutOverflows_areRejectedAtBuild_notLeftToHangWindowCreation() {
    assertRejected(
        b -> b.lowestDiscernibleValue(1L << 55).highestTrackableValue(1L << 56),
        "lowestDiscernibleValue",
        String.valueOf(1L << 55));
    assertRejected(
        b -> b.lowestDiscernibleValue(Long.MAX_VALUE).highestTrackableValue(Long.MAX_VALUE),
        "lowestDiscernibleValue",
        String.valueOf(Long.MAX_VALUE));
    assertRejected(
        b ->
            b.significantDigits(5)
                .lowestDiscernibleValue(1L << 46)
                .highestTrackableValue(Long.MAX_VALUE),
        "lowestDiscernibleValue",
        String.valueOf(1L << 46));
    assertRejected(
        b -> b.lowestDiscernibleValue(Long.MAX_VALUE / 2 + 1),
        "lowestDiscernibleValue",
        String.valueOf(Long.MAX_VALUE / 2 + 1));
  }

  /**
   * Every lowest discernible value near a power of two, at every precision: the builder accepts
   * exactly what HdrHistogram's constructor accepts, and an accepted configuration creates its
   * windows promptly with HdrHistogram's layout, up to {@code Long.MAX_VALUE}.
   */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void acceptsExactlyTheRangesHdrHistogramAccepts(int digits) {
    List<Long> lowests =
        new ArrayList<>(List.of(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE));
    for (int k = 0; k < 63; k++) {
      for (long d = -3; d <= 3; d++) {
        long lowest = (1L << k) + d;
        if (lowest >= 1) {
          lowests.add(lowest);
        }
      }
    }
    int accepted = 0;
    for (long lowest : lowests) {
      long twice = lowest > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * lowest;
      boolean hdrAccepts = accepts(() -> new Histogram(lowest, twice, digits));
      WindowConfig.Builder b =
          WindowConfig.builder()
              .length(Duration.ofSeconds(1))
              .buckets(1)
              .stripes(1)
              .significantDigits(digits)
              .lowestDiscernibleValue(lowest);
      assertThat(accepts(() -> b.highestTrackableValue(twice).build()))
          .as("lowest %s at %s digits", lowest, digits)
          .isEqualTo(hdrAccepts);
      assertThat(accepts(() -> b.highestTrackableValue(Long.MAX_VALUE).build()))
          .as("lowest %s up to Long.MAX_VALUE at %s digits", lowest, digits)
          .isEqualTo(hdrAccepts);
      if (!hdrAccepts) {
        continue;
      }
      accepted++;
      WindowConfig small = b.highestTrackableValue(twice).build();
      WindowConfig wide = b.highestTrackableValue(Long.MAX_VALUE).build();
      assertTimeoutPreemptively(
          Duration.ofSeconds(2),
          () -> {
            RollingWindow.createCompact(wide, new ManualTimeSource()).record(lowest);
            KeyedWindows.builder().window(wide).build().record("k", lowest);
            BucketLayout layout = BucketLayout.of(wide);
            assertThat(layout.length()).isPositive();
            return layout;
          });
      Histogram histogram = new Histogram(lowest, twice, digits);
      BucketLayout layout = BucketLayout.of(small);
      assertThat(layout.length()).isEqualTo((histogram.getEstimatedFootprintInBytes() - 512) / 8);
      for (long v : new long[] {0, 1, lowest - 1, lowest, lowest + 1, twice - 1, twice}) {
        if (v >= 0) {
          assertThat(layout.valueAt(layout.indexOf(v)))
              .as("value %s, lowest %s", v, lowest)
              .isEqualTo(histogram.lowestEquivalentValue(v));
        }
      }
    }
    assertThat(accepted).isGreaterThan(lowests.size() / 2);
  }

  private static boolean accepts(Runnable build) {
    try {
      build.run();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static void assertRejected(
      UnaryOperator<WindowConfig.Builder> change, String parameter, String value) {
    assertThatThrownBy(() -> change.apply(WindowConfig.builder()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(parameter)
        .hasMessageContaining(value);
  }
}
