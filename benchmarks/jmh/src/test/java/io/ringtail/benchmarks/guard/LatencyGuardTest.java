package io.ringtail.benchmarks.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;

/** The guard's pairs and arithmetic; the timing itself runs in CI's guard step, never here. */
class LatencyGuardTest {
  @Test
  void pairs_nameBenchmarksOfGuardBenchmark() {
    Set<String> benchmarks =
        Arrays.stream(GuardBenchmark.class.getMethods())
            .filter(m -> m.isAnnotationPresent(Benchmark.class))
            .map(Method::getName)
            .collect(Collectors.toSet());
    for (LatencyGuard.Pair p : LatencyGuard.PAIRS) {
      assertThat(benchmarks).as(p.what()).contains(p.hot(), p.floor());
    }
    assertThat(benchmarks).containsAll(LatencyGuard.ALLOCATION_FREE);
  }

  @Test
  void pairs_limitCatchesADoubledHotPathAndClearsTheMeasuredValue() {
    for (LatencyGuard.Pair p : LatencyGuard.PAIRS) {
      assertThat(p.limit())
          .as(p.what())
          .isLessThan(2 * p.measured())
          .isGreaterThan(1.3 * p.measured());
    }
  }

  @Test
  void median_oddAndEvenCounts() {
    assertThat(LatencyGuard.median(new double[] {3, 1, 2})).isEqualTo(2);
    assertThat(LatencyGuard.median(new double[] {9, 1, 2, 3, 100})).isEqualTo(3);
    assertThat(LatencyGuard.median(new double[] {4, 1, 2, 3})).isEqualTo(2.5);
  }

  @Test
  void passes_aMissMeasuredAgainWithinTheLimit_passes() {
    assertThat(LatencyGuard.passes(1.6, new double[] {1.0, 1.1, 1.2}, new double[0])).isTrue();
    assertThat(LatencyGuard.passes(1.6, new double[] {1.5, 1.7, 1.9}, new double[] {1.0, 1.2, 2}))
        .isTrue();
    assertThat(LatencyGuard.passes(1.6, new double[] {1.5, 1.7, 1.9}, new double[] {1.7, 1.8, 1}))
        .isFalse();
    assertThat(LatencyGuard.passes(1.6, new double[] {1.5, 1.7, 1.9}, new double[0])).isFalse();
  }

  @Test
  void ratios_hotOverFloorInEachRound() {
    LatencyGuard.Pair p = new LatencyGuard.Pair("x", "hot", "floor", 2, 1);
    double[] r =
        LatencyGuard.ratios(
            p,
            java.util.List.of(
                java.util.Map.of("hot", 6.0, "floor", 3.0),
                java.util.Map.of("hot", 5.0, "floor", 4.0)));
    assertThat(r).containsExactly(2.0, 1.25);
  }

  @Test
  void slowdown_unknownName_namesTheProperty() {
    assertThatThrownBy(() -> GuardBenchmark.RecordPath.of("slower"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "ringtail.guard.slowdown must be none, twice, lock, atomic or allocate, but was slower");
  }

  @Test
  void slowdown_twice_recordsEverySampleTwice() {
    io.ringtail.ManualTimeSource time = new io.ringtail.ManualTimeSource(0);
    io.ringtail.RollingWindow window =
        io.ringtail.RollingWindow.create(io.ringtail.WindowConfig.defaults(), time);
    GuardBenchmark.RecordPath.of("twice").record(window, 42);
    GuardBenchmark.RecordPath.of("none").record(window, 42);
    assertThat(window.snapshot().count()).isEqualTo(3);
  }
}
