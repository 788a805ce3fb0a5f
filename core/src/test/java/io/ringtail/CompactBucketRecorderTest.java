package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BucketRecorder#create}'s slot tables: the same buckets as the dense recorder and an exact
 * per-slot model while tables grow, overflow, turn dense and shrink back; nothing lost when writers
 * race flips and overflow growth; no allocation in steady state; memory that follows the distinct
 * values.
 */
class CompactBucketRecorderTest {
  private static final long WIDTH = Duration.ofSeconds(1).toNanos();
  private static final WindowConfig CONFIG = WindowConfig.builder().stripes(1).build();
  private static final BucketLayout LAYOUT = BucketLayout.of(CONFIG);

  /**
   * Phases of few, many (thousands, past the dense switch) and few distinct values again, with
   * drains at random, rotations without drains and rejections: every drained bucket equals the
   * dense recorder's, slot for slot, and an exact count per slot of the samples sent.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void randomStreams_matchDenseRecorderAndExactModel_slotForSlot(long seed) {
    ManualTimeSource time = new ManualTimeSource(1_000_000 * WIDTH);
    BucketRecorder compact = BucketRecorder.create(CONFIG, time);
    BucketRecorder dense = BucketRecorder.dense(CONFIG, time);
    SplittableRandom random = new SplittableRandom(seed);
    Map<Long, Map<Integer, Long>> model = new TreeMap<>();
    Map<Long, Map<Integer, Long>> fromCompact = new TreeMap<>();
    Map<Long, Map<Integer, Long>> fromDense = new TreeMap<>();
    // per phase: distinct values, then one op in how many drains, and one in how many moves time
    long largest = 0;
    int[][] phases = {
      {5, 150, 250},
      {100, 150, 250},
      {5_000, 8_000, 12_000},
      {40, 150, 250},
      {300, 300, 250},
      {2, 50, 500}
    };
    for (int[] phase : phases) {
      long[] values = new long[phase[0]];
      for (int i = 0; i < values.length; i++) {
        values[i] = (long) Math.exp(random.nextDouble() * Math.log(CONFIG.highestTrackableValue()));
      }
      for (int op = 0; op < 30_000; op++) {
        if (random.nextInt(phase[2]) == 0) {
          time.advanceNanos(random.nextLong(2 * WIDTH));
        } else if (random.nextInt(phase[1]) == 0) {
          List<BucketHistogram> a = compact.drain();
          List<BucketHistogram> b = dense.drain();
          assertSame(a, b);
          collect(a, fromCompact);
          collect(b, fromDense);
          largest = Math.max(largest, compact.footprintBytes());
        } else if (random.nextInt(200) == 0) {
          compact.record(-1);
          dense.record(-1);
        } else {
          long v = values[random.nextInt(values.length)];
          compact.record(v);
          dense.record(v);
          model
              .computeIfAbsent(compact.bucketOf(time.nanoTime()), k -> new TreeMap<>())
              .merge(LAYOUT.indexOf(v), 1L, Long::sum);
        }
      }
    }
    time.advanceNanos(WIDTH);
    List<BucketHistogram> a = compact.drain();
    List<BucketHistogram> b = dense.drain();
    assertSame(a, b);
    collect(a, fromCompact);
    collect(b, fromDense);
    assertThat(fromCompact).isEqualTo(model).isEqualTo(fromDense);
    // the thousands of distinct values made a dense array; the last phases shrank it away
    assertThat(largest).isGreaterThan(16 + 8L * LAYOUT.length());
    assertThat(compact.footprintBytes()).isLessThan(4_096);
  }

  /**
   * A burst of new values between two drains fills the smallest table: recording threads chain
   * overflow tables (counted), the drain sums the chain exactly and grows the table, so the same
   * burst again needs no overflow.
   */
  @Test
  void burstBetweenDrains_chainsOverflowTables_thenDrainGrowsTable() {
    ManualTimeSource time = new ManualTimeSource(0);
    BucketRecorder recorder = BucketRecorder.create(CONFIG, time);
    long growths = 0;
    for (int round = 0; round < 2; round++) {
      for (long v = 1; v <= 200; v++) {
        for (int i = 0; i < 3; i++) {
          recorder.record(v * 10);
        }
      }
      List<BucketHistogram> out = recorder.drain();
      assertThat(out).hasSize(1);
      BucketHistogram h = out.get(0);
      assertThat(h.count()).isEqualTo(600);
      assertThat(h.slotCount()).isEqualTo(200);
      for (int i = 0; i < h.slotCount(); i++) {
        assertThat(h.countAt(i)).isEqualTo(3);
      }
      if (round == 0) {
        growths = recorder.recordGrowths();
        assertThat(growths).isPositive();
      } else {
        assertThat(recorder.recordGrowths()).isEqualTo(growths);
      }
      recorder.drain(); // flips back to the accumulator just grown
    }
  }

  /** SlotTable on its own: a chain's cells come out sorted, one per slot, counts summed. */
  @Test
  void slotTable_sortedChain_sumsEachSlotOnce() {
    SlotTable table = new SlotTable(SlotTable.MIN_CAPACITY, 1 << 12);
    SplittableRandom random = new SplittableRandom(9);
    long[] expected = new long[1 << 12];
    for (int i = 0; i < 20_000; i++) {
      int slot = random.nextInt(i < 10_000 ? 40 : 1 << 12);
      table.increment(slot);
      expected[slot]++;
    }
    assertThat(table.overflowCount()).isGreaterThan(0);
    SlotTable sorted = table.sorted();
    long[] actual = new long[1 << 12];
    int previous = -1;
    for (int i = sorted.sortedFrom; i < sorted.keys.length; i++) {
      int slot = sorted.keys[i] - 1;
      assertThat(slot).isGreaterThan(previous);
      actual[slot] = sorted.counts[i];
      previous = slot;
    }
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * SlotTable alone under racing writers, with no stripe or sum in between to space them out: each
   * thread adds to a few slots every thread shares and to its own spread of slots, from the
   * smallest table, so claims race on empty cells, counts on shared cells, and writers on the
   * creation of each overflow table. Every slot's count comes out exact.
   */
  @Test
  void slotTable_racingIncrements_loseNothing() throws Exception {
    int length = 1 << 12;
    for (int round = 0; round < 20; round++) {
      long seed = 31L * round;
      SlotTable table = new SlotTable(SlotTable.MIN_CAPACITY, length);
      int threads = 4;
      int perThread = 200_000;
      long[][] sent = new long[threads][length];
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int w = t;
          futures.add(
              pool.submit(
                  () -> {
                    SplittableRandom random = new SplittableRandom(seed + w);
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                      int slot = (i & 3) != 0 ? random.nextInt(4) : random.nextInt(length);
                      table.increment(slot);
                      sent[w][slot]++;
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : futures) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      long[] expected = new long[length];
      for (long[] s : sent) {
        for (int i = 0; i < length; i++) {
          expected[i] += s[i];
        }
      }
      SlotTable sorted = table.sorted();
      long[] actual = new long[length];
      for (int i = sorted.sortedFrom; i < sorted.keys.length; i++) {
        actual[sorted.keys[i] - 1] += sorted.counts[i];
      }
      assertThat(actual).as("round %d", round).isEqualTo(expected);
    }
  }

  /**
   * A key of 100 distinct values stays under 8 KB; a burst of thousands makes its counts dense (no
   * larger than the dense recorder's); a run of quiet drains brings it back under 8 KB.
   */
  @Test
  void footprint_followsTheDistinctValues() {
    ManualTimeSource time = new ManualTimeSource(0);
    BucketRecorder recorder = BucketRecorder.create(CONFIG, time);
    long[] few = spread(100, 11);
    long[] many = spread(2_000, 12);
    long denseBytes = BucketRecorder.dense(CONFIG, time).footprintBytes();
    recordBuckets(recorder, time, few, 5);
    long atFew = recorder.footprintBytes();
    recordBuckets(recorder, time, many, 5);
    long atMany = recorder.footprintBytes();
    recordBuckets(recorder, time, few, Accumulator.QUIET_DRAINS + 2);
    long afterQuiet = recorder.footprintBytes();
    assertThat(atFew).isLessThanOrEqualTo(8_192);
    assertThat(atMany).isGreaterThan(4 * atFew).isLessThanOrEqualTo(denseBytes);
    assertThat(afterQuiet).isLessThanOrEqualTo(8_192);
  }

  /**
   * Steady traffic of 100 distinct values, drained every half bucket: after warm-up the records
   * allocate nothing and no overflow table is chained.
   */
  @Test
  void steadyDistinctValues_whileDrainsKeepUp_recordAllocatesNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    threads.setThreadAllocatedMemoryEnabled(true);
    ManualTimeSource time = new ManualTimeSource(0);
    BucketRecorder recorder = BucketRecorder.create(CONFIG, time);
    long[] values = spread(100, 13);
    int buckets = 3_000;
    long recordBytes = 0;
    long growthsAfterWarmUp = -1;
    long drained = 0;
    for (int b = 0; b < buckets; b++) {
      time.advanceNanos(WIDTH);
      if (b == buckets - 500) {
        growthsAfterWarmUp = recorder.recordGrowths();
      }
      for (int half = 0; half < 2; half++) {
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 300; i++) {
          recorder.record(values[i % values.length]);
        }
        long bytes = threads.getCurrentThreadAllocatedBytes() - before;
        if (b >= buckets - 500) {
          recordBytes += bytes;
        }
        for (BucketHistogram h : recorder.drain()) {
          drained += h.count();
        }
      }
    }
    assertThat(recordBytes).isLessThanOrEqualTo(256);
    assertThat(recorder.recordGrowths()).isEqualTo(growthsAfterWarmUp);
    assertThat(drained).isEqualTo(600L * buckets);
  }

  /**
   * Four writers on a recorder that starts with one stripe (two at most, so writers keep sharing),
   * each sending a few values all send and its own values in waves of ever more distinct ones (so
   * tables overflow on the recording threads), while time moves and a drainer drains: every slot's
   * count comes out exactly, across flips, overflow chains, refits and added stripes.
   */
  @Test
  void concurrentBursts_acrossFlipsAndGrowth_loseNothing() throws Exception {
    ManualTimeSource time = new ManualTimeSource(0);
    BucketRecorder recorder =
        BucketRecorder.create(WindowConfig.builder().stripes(2).build(), time);
    BucketLayout layout = BucketLayout.of(WindowConfig.defaults());
    int writers = 4;
    int perWriter = 300_000;
    long[][] sent = new long[writers][layout.length()];
    long[] received = new long[layout.length()];
    long[] sums = new long[2];
    AtomicBoolean done = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < writers; t++) {
        int w = t;
        futures.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(w);
                  start.await();
                  for (int i = 0; i < perWriter; i++) {
                    int wave = (i >> 14) % 6; // 2, 16, ..., 65,536 distinct candidate values
                    long v =
                        (i & 1) == 0
                            ? 1_000 * (1 + random.nextInt(8)) // cells every writer adds to
                            : 1 + w + writers * (long) random.nextInt(2 << (3 * wave));
                    recorder.record(v);
                    sent[w][layout.indexOf(v)]++;
                    if ((i & 4095) == 0) {
                      time.advance(Duration.ofMillis(50));
                    }
                  }
                  return null;
                }));
      }
      futures.add(
          pool.submit(
              () -> {
                start.await();
                while (!done.get()) {
                  drainInto(recorder, received, sums);
                }
                return null;
              }));
      start.countDown();
      for (int t = 0; t < writers; t++) {
        futures.get(t).get();
      }
      done.set(true);
      futures.get(writers).get();
    } finally {
      pool.shutdownNow();
    }
    drainInto(recorder, received, sums);
    long[] expected = new long[layout.length()];
    for (long[] s : sent) {
      for (int i = 0; i < s.length; i++) {
        expected[i] += s[i];
      }
    }
    assertThat(received).isEqualTo(expected);
    assertThat(sums[0]).isEqualTo((long) writers * perWriter);
    assertThat(recorder.recordGrowths()).isPositive();
  }

  private static void drainInto(BucketRecorder recorder, long[] received, long[] sums) {
    for (BucketHistogram h : recorder.drain()) {
      long n = 0;
      for (int i = 0; i < h.slotCount(); i++) {
        received[h.slotAt(i)] += h.countAt(i);
        n += h.countAt(i);
      }
      assertThat(n).isEqualTo(h.count());
      sums[0] += h.count();
    }
  }

  /** {@code n} distinct values spread over the default range, in distinct slots. */
  private static long[] spread(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    java.util.Set<Integer> slots = new java.util.HashSet<>();
    long[] values = new long[n];
    for (int i = 0; i < n; ) {
      long v = (long) Math.exp(random.nextDouble() * Math.log(CONFIG.highestTrackableValue()));
      if (slots.add(LAYOUT.indexOf(v))) {
        values[i++] = v;
      }
    }
    return values;
  }

  /** Records every value into each of {@code buckets} buckets, draining after each. */
  private static void recordBuckets(
      BucketRecorder recorder, ManualTimeSource time, long[] values, int buckets) {
    for (int b = 0; b < buckets; b++) {
      for (long v : values) {
        recorder.record(v);
      }
      time.advanceNanos(WIDTH);
      recorder.drain();
    }
  }

  private static void collect(List<BucketHistogram> drained, Map<Long, Map<Integer, Long>> into) {
    for (BucketHistogram h : drained) {
      Map<Integer, Long> slots = into.computeIfAbsent(h.bucket(), k -> new TreeMap<>());
      for (int i = 0; i < h.slotCount(); i++) {
        slots.merge(h.slotAt(i), h.countAt(i), Long::sum);
      }
    }
  }

  private static void assertSame(List<BucketHistogram> compact, List<BucketHistogram> dense) {
    assertThat(compact).hasSameSizeAs(dense);
    for (int i = 0; i < compact.size(); i++) {
      BucketHistogram a = compact.get(i);
      BucketHistogram b = dense.get(i);
      assertThat(a.toString()).isEqualTo(b.toString());
      assertThat(a.slotCount()).isEqualTo(b.slotCount());
      for (int k = 0; k < a.slotCount(); k++) {
        assertThat(a.slotAt(k)).isEqualTo(b.slotAt(k));
        assertThat(a.countAt(k)).isEqualTo(b.countAt(k));
      }
    }
  }
}
