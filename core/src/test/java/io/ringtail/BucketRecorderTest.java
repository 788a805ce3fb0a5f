package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BucketRecorderTest {
  private static final long WIDTH = Duration.ofSeconds(1).toNanos();

  /** The recorder's two named factories: every test here holds for both. */
  enum Shape {
    COMPACT,
    DENSE;

    BucketRecorder create(WindowConfig config, TimeSource time) {
      return this == COMPACT
          ? BucketRecorder.create(config, time)
          : BucketRecorder.dense(config, time);
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void randomStream_drainedBuckets_matchExactModel(Shape shape) {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    BucketRecorder recorder = shape.create(WindowConfig.defaults(), time);
    ExactWindowModel model = new ExactWindowModel();
    Map<Long, BucketHistogram> buckets = new HashMap<>();
    SplittableRandom random = new SplittableRandom(3);
    for (int op = 0; op < 20_000; op++) {
      int dice = random.nextInt(100);
      if (dice < 5) {
        time.advance(Duration.ofMillis(random.nextInt(0, 2_000)));
      } else if (dice < 97) {
        long value = random.nextInt(50) == 0 ? -1 : (long) Math.exp(11 + 2 * random.nextDouble());
        recorder.record(value);
        if (value >= 0) {
          model.record(value, time.nanoTime());
        }
      } else {
        for (BucketHistogram b : recorder.drain()) {
          buckets.merge(b.bucket(), b, BucketHistogram::plus);
        }
      }
    }
    for (BucketHistogram b : recorder.drain()) {
      buckets.merge(b.bucket(), b, BucketHistogram::plus);
    }
    assertThat(buckets).isNotEmpty();
    for (BucketHistogram b : buckets.values()) {
      ExactWindowModel.Stats exact =
          model.between(b.bucket() * WIDTH, (b.bucket() + 1) * WIDTH - 1);
      assertThat(b.count()).isEqualTo(exact.count());
      assertThat(b.sum()).isEqualTo(exact.sum());
      if (exact.count() > 0) {
        assertThat(b.min()).isEqualTo(exact.min());
        assertThat(b.max()).isEqualTo(exact.max());
      }
    }
    long live = recorder.bucketOf(time.nanoTime());
    List<BucketHistogram> inWindow = new ArrayList<>();
    buckets.values().stream().filter(b -> b.bucket() > live - 60).forEach(inWindow::add);
    HistogramSnapshot s =
        BucketHistogram.snapshot(
            WindowConfig.defaults(), inWindow, (live - 59) * WIDTH, time.nanoTime());
    ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
    assertThat(s.count()).isEqualTo(exact.count());
    for (double p : new double[] {1, 50, 95, 99, 100}) {
      long expected = exact.valueAtPercentile(p);
      assertThat(s.valueAtPercentile(p)).isCloseTo(expected, within(expected * 0.01));
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void concurrentRecorders_withConcurrentDrains_loseNothing(Shape shape) throws Exception {
    ManualTimeSource time = new ManualTimeSource(0);
    BucketRecorder recorder = shape.create(WindowConfig.builder().stripes(2).build(), time);
    int threads = 4;
    int perThread = 200_000;
    AtomicBoolean done = new AtomicBoolean();
    long[] drained = new long[2];
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long value = t + 1;
        writers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    recorder.record(value);
                    if ((i & 1023) == 0) {
                      time.advance(Duration.ofMillis(7));
                    }
                  }
                }));
      }
      Future<?> drainer =
          pool.submit(
              () -> {
                while (!done.get()) {
                  for (BucketHistogram b : recorder.drain()) {
                    drained[0] += b.count();
                    drained[1] += b.sum();
                  }
                }
              });
      for (Future<?> f : writers) {
        f.get();
      }
      done.set(true);
      drainer.get();
    } finally {
      pool.shutdownNow();
    }
    for (BucketHistogram b : recorder.drain()) {
      drained[0] += b.count();
      drained[1] += b.sum();
    }
    assertThat(drained[0]).isEqualTo((long) threads * perThread);
    assertThat(drained[1]).isEqualTo((long) perThread * (1 + 2 + 3 + 4));
  }

  /**
   * A record that rotates seals the finished bucket on the recording thread: it must allocate
   * nothing there while a drain elsewhere keeps up (HotSpot's per-thread counter around the records
   * only; the drains between them are the publisher's). The samples all come out, bucket by bucket.
   */
  @ParameterizedTest
  @EnumSource(Shape.class)
  void recordThroughRotations_whileDrainsKeepUp_allocatesNothing(Shape shape) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    threads.setThreadAllocatedMemoryEnabled(true);
    ManualTimeSource time = new ManualTimeSource(0);
    BucketRecorder recorder = shape.create(WindowConfig.defaults(), time);
    long[] values = new long[500];
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < values.length; i++) {
      values[i] = (long) Math.exp(11 + 3 * random.nextDouble());
    }
    int buckets = 3_000;
    long recordBytes = 0;
    Map<Long, Long> drained = new HashMap<>();
    for (int b = 0; b < buckets; b++) {
      time.advanceNanos(WIDTH);
      for (int half = 0; half < 2; half++) {
        // the first record of the first half rotates past the second half of the bucket before
        long before = threads.getCurrentThreadAllocatedBytes();
        for (long v : values) {
          recorder.record(v);
        }
        long bytes = threads.getCurrentThreadAllocatedBytes() - before;
        if (b >= buckets - 500) { // the buckets before warm the JIT
          recordBytes += bytes;
        }
        if (half == 0) {
          for (BucketHistogram h : recorder.drain()) {
            drained.merge(h.bucket(), h.count(), Long::sum);
          }
        }
      }
    }
    for (BucketHistogram h : recorder.drain()) {
      drained.merge(h.bucket(), h.count(), Long::sum);
    }
    assertThat(recordBytes).isLessThanOrEqualTo(256);
    assertThat(drained).hasSize(buckets);
    assertThat(drained.values()).containsOnly(2L * values.length);
  }

  /**
   * Rotations with no drain between them: the first leaves its bucket in the flipped stripes, each
   * later one seals the bucket before; one drain hands them all out, each bucket on its own.
   */
  @ParameterizedTest
  @EnumSource(Shape.class)
  void rotationsWithoutDrains_keepEveryBucketApart(Shape shape) {
    ManualTimeSource time = new ManualTimeSource(100 * WIDTH);
    BucketRecorder recorder = shape.create(WindowConfig.builder().stripes(2).build(), time);
    for (int b = 0; b < 7; b++) {
      for (int i = 0; i <= b; i++) {
        recorder.record(1_000L * (b + 1));
      }
      time.advanceNanos(WIDTH);
    }
    recorder.record(-5); // a rejection in the live bucket
    List<BucketHistogram> drained = recorder.drain();
    assertThat(drained)
        .extracting(BucketHistogram::bucket)
        .containsExactly(100L, 101L, 102L, 103L, 104L, 105L, 106L, 107L);
    for (int b = 0; b < 7; b++) {
      BucketHistogram h = drained.get(b);
      assertThat(h.count()).isEqualTo(b + 1);
      assertThat(h.min()).isEqualTo(h.max()).isEqualTo(1_000L * (b + 1));
      assertThat(h.rejected()).isZero();
    }
    assertThat(drained.get(7).count()).isZero();
    assertThat(drained.get(7).rejected()).isEqualTo(1);
    assertThat(recorder.drain()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void lateReading_recordsIntoTheLiveBucket(Shape shape) {
    ManualTimeSource time = new ManualTimeSource(10 * WIDTH);
    BucketRecorder recorder = shape.create(WindowConfig.defaults(), time);
    recorder.recordAt(5, 3 * WIDTH);
    List<BucketHistogram> out = recorder.drain();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).bucket()).isEqualTo(10);
    assertThat(recorder.drain()).isEmpty();
  }

  @Test
  void bucketHistogram_of_rejectsInconsistentParts() {
    assertThatThrownBy(() -> BucketHistogram.of(0, new int[] {1}, new long[0], 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counts must be the same length as slots (1), but was 0");
    assertThatThrownBy(() -> BucketHistogram.of(0, new int[] {3, 2}, new long[] {1, 1}, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("slots[1] must be above slots[0], but was 2");
    assertThatThrownBy(() -> BucketHistogram.of(0, new int[] {3}, new long[] {0}, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counts[0] must be positive, but was 0");
    assertThatThrownBy(() -> BucketHistogram.of(0, new int[] {3}, new long[] {1}, 3, 5, 4, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max must be at least min (5), but was 4");
    assertThatThrownBy(() -> BucketHistogram.of(0, null, new long[0], 0, 0, 0, 0))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("slots");
    assertThatThrownBy(() -> BucketHistogram.of(0, new int[0], new long[0], 0, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rejected");
    BucketHistogram a = BucketHistogram.of(1, new int[0], new long[0], 0, 0, 0, 0);
    BucketHistogram b = BucketHistogram.of(2, new int[0], new long[0], 0, 0, 0, 0);
    assertThatThrownBy(() -> a.plus(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("other's bucket must be 1 (this one's), but was 2");
    assertThatThrownBy(
            () ->
                BucketHistogram.snapshot(
                    WindowConfig.defaults(),
                    List.of(BucketHistogram.of(0, new int[] {1 << 20}, new long[] {1}, 1, 1, 1, 0)),
                    0,
                    1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slots");
  }

  @Test
  void create_rejectsNulls() {
    assertThatThrownBy(() -> BucketRecorder.create(null, new ManualTimeSource()))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("config");
    assertThatThrownBy(() -> BucketRecorder.create(WindowConfig.defaults(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("timeSource");
  }
}
