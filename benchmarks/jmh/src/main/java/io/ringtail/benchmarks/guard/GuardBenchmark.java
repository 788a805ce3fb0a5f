package io.ringtail.benchmarks.guard;

import io.ringtail.HistogramSnapshot;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.benchmarks.window.Contender;
import io.ringtail.keyed.KeyedWindows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The operations {@link LatencyGuard} compares, each against its floor in the same run: the hot
 * paths ({@code record1}, {@code record2}, {@code keyedRecord}) and the floors ({@code
 * recorderAndClock}, {@code mapLookup}). Iteration and fork counts come from the guard.
 *
 * <p>{@code -Dringtail.guard.slowdown=twice|lock|atomic|allocate} wraps the hot paths in a
 * deliberate regression (every sample recorded twice, a shared monitor, a shared atomic counter, an
 * allocation per call) so the guard can be shown to fail; it exists only here, never in the
 * library.
 *
 * <p>A JMH state shared by every benchmark thread (the structures under test are the shared
 * instances); each thread's {@link Cursor} is its own.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GuardBenchmark {
  static final String SLOWDOWN_PROPERTY = "ringtail.guard.slowdown";

  /** Keys in the keyed pair: all present before measurement, so no call creates one. */
  static final int KEYS = 1_000;

  private RollingWindow window;

  /** 100,000 samples, its time standing still: every snapshot reads the same counts. */
  private RollingWindow readWindow;

  /** The counts of the slots {@link #readWindow}'s snapshot spans, for the read's floor. */
  private long[] spannedCounts;

  private KeyedWindows keyed;
  private Recorder recorder;
  private ConcurrentHashMap<String, LongAdder> map;
  private String[] names;
  private RecordPath path;
  private final AtomicInteger threadOffsets = new AtomicInteger();

  @Setup
  public void setUp() {
    window = RollingWindow.create(WindowConfig.defaults());
    keyed = KeyedWindows.builder().maximumKeys(KEYS).build();
    recorder = new Recorder(1, Contender.HIGHEST, 2);
    map = new ConcurrentHashMap<>();
    names = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      names[i] = "tenant-" + i + "/GET /api/orders";
      keyed.record(names[i], 1);
      map.put(names[i], new LongAdder());
    }
    path = RecordPath.of(System.getProperty(SLOWDOWN_PROPERTY, "none"));

    readWindow = RollingWindow.create(WindowConfig.defaults(), new ManualTimeSource());
    Latencies.Cursor values = new Latencies.Cursor(17);
    for (int i = 0; i < 100_000; i++) {
      readWindow.record(values.next());
    }
    Histogram h = ((HistogramSnapshot) readWindow.snapshot()).histogram();
    long lowest = h.lowestEquivalentValue(h.getMinValue());
    List<Long> spanned = new ArrayList<>();
    for (HistogramIterationValue v : h.allValues()) {
      if (v.getValueIteratedTo() >= lowest) {
        spanned.add(v.getCountAtValueIteratedTo());
      }
      if (v.getValueIteratedTo() >= h.getMaxValue()) {
        break;
      }
    }
    spannedCounts = spanned.stream().mapToLong(Long::longValue).toArray();
  }

  /** Each thread's walk through the keys and the latencies, from its own offset. */
  @State(Scope.Thread)
  public static class Cursor {
    private String[] names;
    private int next;
    private Latencies.Cursor values;

    @Setup
    public void setUp(GuardBenchmark shared) {
      int offset = shared.threadOffsets.getAndIncrement();
      names = shared.names;
      next = offset * (names.length / 2 + 1) % names.length;
      values = new Latencies.Cursor(offset * 7919);
    }

    String key() {
      if (next >= names.length) {
        next = 0;
      }
      return names[next++];
    }

    long value() {
      return values.next();
    }
  }

  @Benchmark
  @Threads(1)
  public void record1(Cursor c) {
    path.record(window, c.value());
  }

  @Benchmark
  @Threads(2)
  public void record2(Cursor c) {
    path.record(window, c.value());
  }

  /** HdrHistogram's wait-free Recorder plus the one clock read a window's record needs. */
  @Benchmark
  @Threads(1)
  public long recorderAndClock(Cursor c) {
    recorder.recordValue(c.value());
    return System.nanoTime();
  }

  @Benchmark
  @Threads(1)
  public void keyedRecord(Cursor c) {
    path.record(keyed, c);
  }

  /** The cheapest keyed counter: a lookup of a present key and an increment. */
  @Benchmark
  @Threads(1)
  public void mapLookup(Cursor c) {
    map.get(c.key()).increment();
  }

  /** The read a dashboard or alert makes: a snapshot of 100,000 samples and its P95. */
  @Benchmark
  @Threads(1)
  public double snapshotP95() {
    return path.read(readWindow);
  }

  /**
   * The floor of that read: as many counts as its snapshot spans copied into a fresh array, made
   * cumulative, and the P95's rank found by binary search; the same allocation, no lock, drain or
   * snapshot fields.
   */
  @Benchmark
  @Threads(1)
  public int copyAndSearch() {
    long[] source = spannedCounts;
    long[] cumulative = new long[source.length];
    long running = 0;
    for (int i = 0; i < source.length; i++) {
      running += source[i];
      cumulative[i] = running;
    }
    return Arrays.binarySearch(cumulative, (long) Math.ceil(0.95 * running));
  }

  /** The record path as shipped, or with one deliberate regression around it. */
  abstract static class RecordPath {
    abstract void record(RollingWindow window, long value);

    /** The read path: a snapshot's P95; {@code twice} reads twice, the others as shipped. */
    double read(RollingWindow window) {
      return window.snapshot().valueAtPercentile(95);
    }

    abstract void record(KeyedWindows keyed, Cursor c);

    static RecordPath of(String name) {
      switch (name.toLowerCase(Locale.ROOT)) {
        case "none":
          return new Direct();
        case "twice":
          return new Twice();
        case "lock":
          return new Locked();
        case "atomic":
          return new SharedAtomic();
        case "allocate":
          return new Allocating();
        default:
          throw new IllegalArgumentException(
              SLOWDOWN_PROPERTY
                  + " must be none, twice, lock, atomic or allocate, but was "
                  + name);
      }
    }
  }

  static final class Direct extends RecordPath {
    @Override
    void record(RollingWindow window, long value) {
      window.record(value);
    }

    @Override
    void record(KeyedWindows keyed, Cursor c) {
      keyed.record(c.key(), c.value());
    }
  }

  /**
   * Twice the work (the keyed form records for two keys, a read takes two snapshots): what a 2x
   * slower hot path looks like.
   */
  static final class Twice extends RecordPath {
    @Override
    double read(RollingWindow window) {
      return window.snapshot().valueAtPercentile(95) + window.snapshot().valueAtPercentile(95);
    }

    @Override
    void record(RollingWindow window, long value) {
      window.record(value);
      window.record(value);
    }

    @Override
    void record(KeyedWindows keyed, Cursor c) {
      keyed.record(c.key(), c.value());
      keyed.record(c.key(), c.value());
    }
  }

  static final class Locked extends RecordPath {
    private final Object lock = new Object();

    @Override
    void record(RollingWindow window, long value) {
      synchronized (lock) {
        window.record(value);
      }
    }

    @Override
    void record(KeyedWindows keyed, Cursor c) {
      synchronized (lock) {
        keyed.record(c.key(), c.value());
      }
    }
  }

  /** One counter every recording thread increments: the contended line striping avoids. */
  static final class SharedAtomic extends RecordPath {
    private final AtomicLong calls = new AtomicLong();

    @Override
    void record(RollingWindow window, long value) {
      calls.incrementAndGet();
      window.record(value);
    }

    @Override
    void record(KeyedWindows keyed, Cursor c) {
      calls.incrementAndGet();
      keyed.record(c.key(), c.value());
    }
  }

  /** A small object per call that escapes, so the JIT cannot remove it. */
  static final class Allocating extends RecordPath {
    volatile long[] last;

    @Override
    void record(RollingWindow window, long value) {
      last = new long[] {value, 0};
      window.record(value);
    }

    @Override
    void record(KeyedWindows keyed, Cursor c) {
      last = new long[] {0, 0};
      keyed.record(c.key(), c.value());
    }
  }
}
