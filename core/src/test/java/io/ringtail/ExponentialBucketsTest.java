package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Slots to base-2 exponential buckets, against each sample's own bucket. */
class ExponentialBucketsTest {

  @Test
  void scaleFollowsTheSignificantDigits() {
    assertThat(ExponentialBuckets.scaleFor(0)).isEqualTo(-1);
    assertThat(ExponentialBuckets.scaleFor(1)).isEqualTo(3);
    assertThat(ExponentialBuckets.scaleFor(2)).isEqualTo(6);
    assertThat(ExponentialBuckets.scaleFor(3)).isEqualTo(8);
    assertThat(ExponentialBuckets.scaleFor(5)).isEqualTo(8);
  }

  @ParameterizedTest
  @ValueSource(ints = {-4, -1, 0, 3, 6, 8, 12})
  void aBoundaryValue_belongsToTheBucketBelowIt(int scale) {
    int range = (int) Math.min(200, Math.scalb(1000.0, scale)); // boundaries within 2^±1000
    for (int i = -range; i <= range; i += 7) {
      double boundary = ExponentialBuckets.lowerBoundary(i, scale);
      assertThat(ExponentialBuckets.indexOf(boundary, scale)).isEqualTo(i - 1);
      assertThat(ExponentialBuckets.indexOf(Math.nextUp(boundary), scale)).isEqualTo(i);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void randomSamples_landInTheirOwnBucketOrTheNextUp(int digits) {
    SplittableRandom random = new SplittableRandom(digits);
    WindowConfig config =
        WindowConfig.builder()
            .length(Duration.ofSeconds(10))
            .buckets(2)
            .significantDigits(digits)
            .cumulativeHistogram(true)
            .build();
    RollingWindow window = RollingWindow.create(config, new ManualTimeSource());
    List<Long> samples = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      long v = random.nextInt(50) == 0 ? 0 : (long) Math.exp(random.nextDouble(0, Math.log(3e12)));
      window.record(v);
      samples.add(v);
    }
    int scale = ExponentialBuckets.scaleFor(digits);
    double unit = 1e-9;
    ExponentialBuckets buckets =
        window.cumulativeHistogram().orElseThrow().exponentialBuckets(scale, unit);
    assertThat(buckets.scale()).isEqualTo(scale);
    assertThat(buckets.totalCount()).isEqualTo(samples.size());
    // own[k]: samples whose own bucket is offset - 1 + k (one below the first, if all moved up)
    long[] own = new long[buckets.length() + 1];
    long zero = 0;
    for (long v : samples) {
      if (v == 0) {
        zero++;
      } else {
        own[ExponentialBuckets.indexOf(v * unit, scale) - buckets.offset() + 1]++;
      }
    }
    assertThat(buckets.zeroCount()).isEqualTo(zero);
    // each bucket holds samples of its own, less some moved one bucket up, plus some from below
    long moved = own[0];
    long in = own[0];
    for (int i = 0; i < buckets.length(); i++) {
      long out = own[i + 1] + in - buckets.countAt(i);
      assertThat(out).isBetween(0L, own[i + 1]);
      moved += out;
      in = out;
    }
    assertThat(in).isZero();
    // and only a slot straddling a boundary moves: a small share at these digits
    assertThat((double) moved / samples.size()).isLessThan(digits == 1 ? 0.5 : 0.25);
  }

  @Test
  void badArguments_areRejectedClearly() {
    WindowConfig config = WindowConfig.builder().cumulativeHistogram(true).build();
    CumulativeHistogram h =
        RollingWindow.create(config, new ManualTimeSource()).cumulativeHistogram().orElseThrow();
    assertThatThrownBy(() -> h.exponentialBuckets(21, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scale");
    assertThatThrownBy(() -> h.exponentialBuckets(3, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unit");
    assertThatThrownBy(() -> h.exponentialBuckets(3, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unit");
    assertThat(h.exponentialBuckets(3, 1).length()).isZero();
  }
}
