package io.ringtail.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SortedRingTest {

  @Test
  void medianAndMedianDeviation_randomStreams_matchANaiveModel() {
    SplittableRandom random = new SplittableRandom(3);
    for (int capacity : new int[] {1, 2, 7, 8, 64, 128}) {
      SortedRing ring = new SortedRing(capacity);
      ArrayDeque<Double> model = new ArrayDeque<>();
      for (int i = 0; i < 5_000; i++) {
        // few distinct values so ties and duplicates are common, signed zeros included
        double v = random.nextInt(4) == 0 ? -0.0 : random.nextInt(-20, 20) * 0.5;
        ring.add(v);
        model.addLast(v);
        if (model.size() > capacity) {
          model.removeFirst();
        }
        double[] sorted = model.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        double[] deviations =
            Arrays.stream(sorted).map(x -> Math.abs(x - median)).sorted().toArray();
        assertThat(ring.size()).isEqualTo(n);
        assertThat(ring.median()).isEqualTo(median);
        assertThat(ring.medianDeviation(median)).isEqualTo(deviations[(n - 1) / 2]);
        assertThat(ring.min()).isEqualTo(sorted[0] + 0.0);
        assertThat(ring.max()).isEqualTo(sorted[n - 1] + 0.0);
      }
    }
  }

  @Test
  void empty_readsNaN() {
    SortedRing ring = new SortedRing(4);
    assertThat(ring.median()).isNaN();
    assertThat(ring.medianDeviation(0)).isNaN();
    assertThat(ring.min()).isNaN();
    assertThat(ring.max()).isNaN();
  }
}
