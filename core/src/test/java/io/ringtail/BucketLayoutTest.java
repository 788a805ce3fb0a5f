package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BucketLayoutTest {

  @ParameterizedTest
  @CsvSource({
    "1, 3600000000000, 2",
    "1, 3600000000000, 3",
    "1, 2, 0",
    "1, 1000, 1",
    "1000, 3600000000000, 2",
    "7, 123456789, 4",
    "1, 9223372036854775807, 5",
    "1, 4611686018427387904, 2",
  })
  void indexOf_matchesHdrHistogramLowestEquivalentValue(long lowest, long highest, int digits) {
    BucketLayout layout =
        BucketLayout.of(
            WindowConfig.builder()
                .lowestDiscernibleValue(lowest)
                .highestTrackableValue(highest)
                .significantDigits(digits)
                .build());
    Histogram histogram = new Histogram(lowest, highest, digits);
    assertThat(layout.length()).isEqualTo((histogram.getEstimatedFootprintInBytes() - 512) / 8);

    SplittableRandom random = new SplittableRandom(lowest * 31 + digits);
    for (int i = 0; i < 100_000; i++) {
      long value =
          i < 2_000 && i <= highest ? i : random.nextLong(0, highest) >>> random.nextInt(0, 63);
      int index = layout.indexOf(value);
      assertThat(index).isBetween(0, layout.length() - 1);
      assertThat(layout.valueAt(index))
          .as("value %s", value)
          .isEqualTo(histogram.lowestEquivalentValue(value));
    }
    assertThat(layout.valueAt(layout.indexOf(highest)))
        .isEqualTo(histogram.lowestEquivalentValue(highest));
  }
}
