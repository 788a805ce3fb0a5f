package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link WindowSnapshot#pooled} and {@link KeyedWindows#pooledSnapshot}, against exact models. */
class PooledSnapshotTest {
  private static final double[] PERCENTILES = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100};

  @Test
  void partsThatCannotMerge_poolExactly_onRandomStreams() {
    SplittableRandom random = new SplittableRandom(11);
    for (int round = 0; round < 200; round++) {
      int k = 2 + random.nextInt(5);
      List<WindowSnapshot> parts = new ArrayList<>();
      List<Long> all = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        long[] values = new long[random.nextInt(40)]; // some parts empty
        long scale = 1L + random.nextInt(1_000_000);
        for (int j = 0; j < values.length; j++) {
          values[j] = random.nextLong(scale);
          all.add(values[j]);
        }
        Arrays.sort(values);
        parts.add(new ExactSnapshot(values));
      }
      long[] union = all.stream().mapToLong(Long::longValue).sorted().toArray();
      ExactSnapshot exact = new ExactSnapshot(union);
      WindowSnapshot pooled = WindowSnapshot.pooled(parts);

      assertThat(pooled.count()).isEqualTo(exact.count());
      assertThat(pooled.sum()).isEqualTo(exact.sum());
      if (union.length == 0) {
        assertThat(pooled.isEmpty()).isTrue();
        assertThat(pooled.min()).isNaN();
        assertThat(pooled.valueAtPercentile(50)).isNaN();
        assertThat(pooled.fractionAbove(0)).isNaN();
        continue;
      }
      assertThat(pooled.min()).isEqualTo(exact.min());
      assertThat(pooled.max()).isEqualTo(exact.max());
      for (double p : PERCENTILES) {
        assertThat(pooled.valueAtPercentile(p))
            .as("round %d p%s of %s", round, p, Arrays.toString(union))
            .isEqualTo(exact.valueAtPercentile(p));
      }
      for (int t = 0; t < 10; t++) {
        long target = union[random.nextInt(union.length)] + random.nextInt(3) - 1;
        assertThat(pooled.fractionAbove(target)).isEqualTo(exact.fractionAbove(target));
      }
    }
  }

  @Test
  void anEndpointsKeys_poolAsOneWindowOfTheirSamples() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    WindowConfig config = WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build();
    KeyedWindows keyed = KeyedWindows.builder().window(config).timeSource(time).build();
    RollingWindow together = RollingWindow.create(config, time);
    SplittableRandom random = new SplittableRandom(12);
    List<String> keys = List.of("GET /a 200", "GET /a 500", "GET /a 503");
    for (int i = 0; i < 20_000; i++) {
      long v = 1 + (long) Math.exp(random.nextDouble() * 20);
      String key = keys.get(random.nextInt(keys.size()));
      keyed.record(key, v);
      keyed.record("GET /b 200", v * 3); // a key outside the pool
      together.record(v);
      if (i % 1_000 == 0) {
        time.advance(Duration.ofMillis(700));
      }
    }
    WindowSnapshot pooled = keyed.pooledSnapshot(keys);
    WindowSnapshot expected = together.snapshot();

    assertThat(pooled).isInstanceOf(HistogramSnapshot.class); // merged, not searched
    assertThat(pooled.count()).isEqualTo(expected.count());
    assertThat(pooled.sum()).isEqualTo(expected.sum());
    assertThat(pooled.min()).isEqualTo(expected.min());
    assertThat(pooled.max()).isEqualTo(expected.max());
    for (double p : PERCENTILES) {
      assertThat(pooled.valueAtPercentile(p)).isEqualTo(expected.valueAtPercentile(p));
    }
    assertThat(pooled.totals().orElseThrow().count()).isEqualTo(20_000);

    // the same parts seen through a face that cannot merge: the search finds the same values,
    // within one resolution step of the window (2 significant digits)
    List<WindowSnapshot> opaque = new ArrayList<>();
    for (String key : keys) {
      opaque.add(new Opaque(keyed.snapshot(key)));
    }
    WindowSnapshot searched = WindowSnapshot.pooled(opaque);
    assertThat(searched).isNotInstanceOf(HistogramSnapshot.class);
    for (double p : PERCENTILES) {
      double e = expected.valueAtPercentile(p);
      assertThat(searched.valueAtPercentile(p)).as("p%s", p).isCloseTo(e, offsetOf(e));
    }
    assertThat(searched.totals()).isEmpty();
  }

  private static org.assertj.core.data.Offset<Double> offsetOf(double value) {
    return org.assertj.core.data.Offset.offset(Math.max(1.0, value * 0.01));
  }

  @Test
  void onePart_isReturnedAsItIs() {
    WindowSnapshot only = new ExactSnapshot(new long[] {1, 2, 3});
    assertThat(WindowSnapshot.pooled(List.of(only))).isSameAs(only);
  }

  @Test
  void badParts_areRefusedByName_nullsAsTheProjectDoes() {
    assertThatThrownBy(() -> WindowSnapshot.pooled(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parts");
    assertThatThrownBy(() -> WindowSnapshot.pooled(Collections.singletonList(null)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("each of parts");
    assertThatThrownBy(() -> WindowSnapshot.pooled(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("parts");
    KeyedWindows keyed = KeyedWindows.builder().build();
    assertThatThrownBy(() -> keyed.pooledSnapshot(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keys");
    assertThatThrownBy(
            () ->
                WindowSnapshot.pooled(
                        List.of(
                            new ExactSnapshot(new long[] {1}), new ExactSnapshot(new long[] {2})))
                    .valueAtPercentile(101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("percentile");
  }

  /** A snapshot seen only through the interface, as a fleet summary is. */
  private record Opaque(WindowSnapshot s) implements WindowSnapshot {
    @Override
    public long count() {
      return s.count();
    }

    @Override
    public long sum() {
      return s.sum();
    }

    @Override
    public long rejected() {
      return s.rejected();
    }

    @Override
    public double min() {
      return s.min();
    }

    @Override
    public double max() {
      return s.max();
    }

    @Override
    public double valueAtPercentile(double percentile) {
      return s.valueAtPercentile(percentile);
    }

    @Override
    public long startNanos() {
      return s.startNanos();
    }

    @Override
    public long endNanos() {
      return s.endNanos();
    }

    @Override
    public Optional<WindowTotals> totals() {
      return Optional.empty();
    }
  }
}
