package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ExemplarReservoir.Exemplar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Exemplars: the largest recent sample of each power of two, against an exact model. */
class ExemplarReservoirTest {

  @Test
  void randomOffers_keepTheLargestRecentSampleOfEachPowerOfTwo() {
    SplittableRandom random = new SplittableRandom(3);
    ManualTimeSource time = new ManualTimeSource();
    Duration maxAge = Duration.ofSeconds(10);
    ExemplarReservoir reservoir = ExemplarReservoir.create(maxAge, time);
    Map<Integer, Exemplar> model = new HashMap<>();
    for (int step = 0; step < 20_000; step++) {
      if (random.nextInt(50) == 0) {
        time.advanceNanos(random.nextLong(0, 4_000_000_000L));
      }
      long value = (long) Math.exp(random.nextDouble(0, Math.log(1e12)));
      String trace = Long.toHexString(random.nextLong());
      reservoir.offer(value, trace, "s" + step);
      int range = 63 - Long.numberOfLeadingZeros(value | 1);
      Exemplar kept = model.get(range);
      if (kept == null
          || value >= kept.value()
          || time.nanoTime() - kept.timeNanos() > maxAge.toNanos()) {
        model.put(range, new Exemplar(value, trace, "s" + step, time.nanoTime()));
      }
      if (step % 997 == 0) {
        List<Exemplar> expected = new ArrayList<>();
        model.keySet().stream()
            .sorted()
            .map(model::get)
            .filter(e -> time.nanoTime() - e.timeNanos() <= maxAge.toNanos())
            .forEach(expected::add);
        assertThat(reservoir.exemplars()).containsExactlyElementsOf(expected);
      }
    }
  }

  @Test
  void badSamples_keepNothingAndNeverThrow() {
    ExemplarReservoir reservoir =
        ExemplarReservoir.create(Duration.ofSeconds(1), new ManualTimeSource());
    reservoir.offer(-1, "abc", null);
    reservoir.offer(5, null, "span");
    reservoir.offer(5, "", "span");
    assertThat(reservoir.exemplars()).isEmpty();
    reservoir.offer(0, "abc", null);
    assertThat(reservoir.exemplars()).containsExactly(new Exemplar(0, "abc", null, 0));
    assertThatThrownBy(() -> ExemplarReservoir.create(Duration.ZERO, new ManualTimeSource()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxAge");
    assertThatThrownBy(() -> ExemplarReservoir.create(Duration.ofSeconds(1), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("timeSource");
  }

  @Test
  void racingOffers_endWithTheLargestOfEachRange() throws Exception {
    ExemplarReservoir reservoir =
        ExemplarReservoir.create(Duration.ofHours(1), new ManualTimeSource());
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int seed = t;
        done.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  for (int i = 0; i < 200_000; i++) {
                    long v = random.nextLong(1, 1L << 20);
                    reservoir.offer(v, "t" + seed, null);
                  }
                  // the largest of every range, offered last by each thread
                  for (int bit = 0; bit < 20; bit++) {
                    reservoir.offer((1L << (bit + 1)) - 1, "t" + seed, null);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(reservoir.exemplars())
        .extracting(Exemplar::value)
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, 20).mapToObj(b -> (1L << (b + 1)) - 1).toList());
  }
}
