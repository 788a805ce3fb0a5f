package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The distribution since creation, against an exact model of every sample recorded. */
class CumulativeHistogramTest {
  private static final WindowConfig CONFIG =
      WindowConfig.builder()
          .length(Duration.ofSeconds(10))
          .buckets(5)
          .highestTrackableValue(10_000_000)
          .stripes(2)
          .cumulativeHistogram(true)
          .build();

  private static RollingWindow window(boolean compact, WindowConfig config, TimeSource time) {
    return compact ? RollingWindow.createCompact(config, time) : RollingWindow.create(config, time);
  }

  /** Slot lowest value to count, from HdrHistogram's own layout: the exact model's slots. */
  private static TreeMap<Long, Long> modelSlots(List<Long> values, int digits) {
    Histogram model = new Histogram(10_000_000, digits);
    TreeMap<Long, Long> slots = new TreeMap<>();
    for (long v : values) {
      slots.merge(model.lowestEquivalentValue(v), 1L, Long::sum);
    }
    return slots;
  }

  private static TreeMap<Long, Long> slotsOf(CumulativeHistogram h, Histogram model) {
    TreeMap<Long, Long> slots = new TreeMap<>();
    h.forEachSlot(
        (lowest, highest, count) -> {
          assertThat(model.lowestEquivalentValue(highest)).isEqualTo(lowest);
          assertThat(model.highestEquivalentValue(lowest)).isEqualTo(highest);
          assertThat(count).isPositive();
          assertThat(slots.put(lowest, count)).isNull();
        });
    return slots;
  }

  @ParameterizedTest(name = "compact={0}")
  @ValueSource(booleans = {false, true})
  void randomStream_slotsEqualEverySampleSinceCreation(boolean compact) {
    SplittableRandom random = new SplittableRandom(compact ? 29 : 92);
    for (int run = 0; run < 10; run++) {
      int digits = 1 + random.nextInt(3);
      WindowConfig config = CONFIG.toBuilder().significantDigits(digits).build();
      Histogram layout = new Histogram(10_000_000, digits);
      ManualTimeSource time =
          new ManualTimeSource(random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L));
      RollingWindow window = window(compact, config, time);
      List<Long> accepted = new ArrayList<>();
      double sum = 0;
      long rejected = 0;
      for (int step = 0; step < 3_000; step++) {
        int action = random.nextInt(100);
        if (action < 75) {
          long value =
              random.nextInt(20) == 0
                  ? random.nextLong(-5, 20_000_000)
                  : (long) Math.exp(random.nextDouble(0, Math.log(10_000_000)));
          window.record(value);
          if (value < 0 || value > config.highestTrackableValue()) {
            rejected++;
          } else {
            accepted.add(value);
            sum += value;
          }
        } else if (action < 90) {
          time.advanceNanos(random.nextLong(0, 3_000_000_000L));
        } else if (action < 92) {
          time.advance(Duration.ofSeconds(random.nextLong(10, 1_000))); // an idle gap
        } else {
          CumulativeHistogram h = window.cumulativeHistogram().orElseThrow();
          assertThat(h.totals()).isEqualTo(new WindowTotals(accepted.size(), sum, rejected));
          assertThat(h.count()).isEqualTo(accepted.size());
          assertThat(h.significantDigits()).isEqualTo(digits);
          assertThat(h.endNanos()).isGreaterThanOrEqualTo(h.startNanos());
          assertThat(slotsOf(h, layout)).isEqualTo(modelSlots(accepted, digits));
        }
      }
    }
  }

  @ParameterizedTest(name = "compact={0}")
  @ValueSource(booleans = {false, true})
  void withoutTheOption_thereIsNone(boolean compact) {
    WindowConfig plain = CONFIG.toBuilder().cumulativeHistogram(false).build();
    RollingWindow window = window(compact, plain, new ManualTimeSource());
    window.record(5);
    assertThat(window.cumulativeHistogram()).isEmpty();
    assertThat(plain).isNotEqualTo(CONFIG);
    assertThat(CONFIG.toString()).contains("cumulativeHistogram");
    assertThat(CONFIG.toBuilder().build()).isEqualTo(CONFIG);
  }

  @ParameterizedTest(name = "compact={0}")
  @ValueSource(booleans = {false, true})
  void keepingIt_costsItsArraysInTheFootprint(boolean compact) {
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow with = window(compact, CONFIG, time);
    RollingWindow without =
        window(compact, CONFIG.toBuilder().cumulativeHistogram(false).build(), time);
    for (RollingWindow w : List.of(with, without)) {
      for (int i = 0; i < 100; i++) {
        w.record(1_000 + 97L * i);
      }
      time.advance(Duration.ofSeconds(3));
      w.record(7);
    }
    time.advance(Duration.ofSeconds(30));
    with.snapshot();
    without.snapshot();
    assertThat(with.footprintBytes()).isGreaterThan(without.footprintBytes());
  }

  @ParameterizedTest(name = "compact={0}")
  @ValueSource(booleans = {false, true})
  void keyedWindows_giveEachKeysDistribution(boolean compact) {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows keyed =
        KeyedWindows.builder().window(CONFIG).compact(compact).timeSource(time).build();
    SplittableRandom random = new SplittableRandom(7);
    Map<String, List<Long>> model = new TreeMap<>();
    for (int i = 0; i < 5_000; i++) {
      String key = "route" + random.nextInt(5);
      long value = random.nextLong(0, 10_000_000);
      keyed.record(key, value);
      model.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
      if (i % 500 == 0) {
        time.advance(Duration.ofSeconds(4));
      }
    }
    Map<String, CumulativeHistogram> histograms = keyed.cumulativeHistograms();
    assertThat(histograms.keySet()).isEqualTo(model.keySet());
    Histogram layout = new Histogram(10_000_000, 2);
    model.forEach(
        (key, values) ->
            assertThat(slotsOf(histograms.get(key), layout)).isEqualTo(modelSlots(values, 2)));
    KeyedWindows plain =
        KeyedWindows.builder()
            .window(CONFIG.toBuilder().cumulativeHistogram(false).build())
            .timeSource(time)
            .build();
    plain.record("a", 1);
    assertThat(plain.cumulativeHistograms()).isEmpty();
  }

  @Test
  void concurrentRecorders_loseNothing() throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow window = RollingWindow.create(CONFIG.toBuilder().stripes(4).build(), time);
    int threads = 4;
    int perThread = 200_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long base = 100L * (t + 1);
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    window.record(base + (i & 63));
                    if ((i & 4095) == 0) {
                      time.advanceNanos(1_000_000_000L); // rotations while others record
                    }
                  }
                }));
      }
      long reads = 0;
      while (done.stream().anyMatch(f -> !f.isDone())) {
        long[] total = {0};
        CumulativeHistogram h = window.cumulativeHistogram().orElseThrow();
        h.forEachSlot((lo, hi, c) -> total[0] += c);
        assertThat(total[0]).isEqualTo(h.count());
        reads++;
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertThat(reads).isPositive();
    } finally {
      pool.shutdownNow();
    }
    CumulativeHistogram h = window.cumulativeHistogram().orElseThrow();
    assertThat(h.count()).isEqualTo((long) threads * perThread);
    long[] perThreadSlots = new long[threads];
    h.forEachSlot((lo, hi, c) -> perThreadSlots[(int) (lo / 100) - 1] += c);
    assertThat(perThreadSlots).containsOnly(perThread);
  }
}
