package io.ringtail.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RangeNoveltyTest {
  /** The envelope as its javadoc defines it, one step at a time, with the median by sorting. */
  private static final class NaiveMedianRange {
    private final int history;
    private final double relax;
    private final double scale;
    private final ArrayDeque<Double> window = new ArrayDeque<>();
    private double high = Double.NaN;
    private double low = Double.NaN;

    NaiveMedianRange(int history, double relax, double scale) {
      this.history = history;
      this.relax = relax;
      this.scale = scale;
    }

    /** The raw score of the median of the last {@code history} values, x included. */
    double next(double x) {
      window.addLast(x);
      if (window.size() > history) {
        window.removeFirst();
      }
      double[] sorted = window.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      int n = sorted.length;
      double m = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      if (Double.isNaN(high)) {
        high = m;
        low = m;
        return 0;
      }
      double excess = m > high ? m - high : (m < low ? low - m : 0);
      double e = excess / (high - low + 1e-9 * Math.abs(high) + 1e-12);
      double raw = e / (e + scale);
      high = Math.max(m, high - (high - m) / relax);
      low = Math.min(m, low + (m - low) / relax);
      return raw;
    }
  }

  @Test
  void medianRange_randomStreams_matchesANaiveModel() {
    SplittableRandom random = new SplittableRandom(38);
    for (int stream = 0; stream < 20; stream++) {
      int history = 8 + random.nextInt(89);
      double relax = 10 + random.nextInt(1_000);
      double scale = 1 + random.nextInt(10);
      SortedRing ring = new SortedRing(history);
      RangeNovelty range = new RangeNovelty(relax, scale);
      NaiveMedianRange naive = new NaiveMedianRange(history, relax, scale);
      double level = 100;
      int outside = 0;
      for (int i = 0; i < 3_000; i++) {
        // a random walk of levels with noise and repeated values: medians leave their range often
        if (random.nextInt(200) == 0) {
          level += random.nextInt(-50, 51);
        }
        double x = random.nextInt(4) == 0 ? level : level + random.nextGaussian() * 5;
        ring.add(x);
        double median = ring.median();
        double raw = range.next(median, median);
        assertThat(raw).isCloseTo(naive.next(x), within(1e-9));
        outside += raw > 0 ? 1 : 0;
      }
      assertThat(outside).as("stream %d leaves its range", stream).isPositive();
    }
  }

  @Test
  void insideTheRange_scoresZero_beyondIt_scoresHalfAtScaleWidths() {
    RangeNovelty range = new RangeNovelty(1e12, 4); // forgets nothing within this test
    range.next(10, 10);
    range.next(20, 15); // range [10, 20], width 10
    assertThat(range.next(15, 15)).isZero();
    assertThat(range.next(11, 15)).isZero();
    assertThat(range.next(19, 15)).isZero();
    // 40 widths above the top: 40 / (40 + 4)
    assertThat(range.next(420, 15)).isCloseTo(40.0 / 44, within(1e-9));
  }
}
