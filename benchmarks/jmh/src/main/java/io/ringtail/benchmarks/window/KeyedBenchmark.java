package io.ringtail.benchmarks.window;

import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Keyed cost with many keys: one call for the next key of a round-robin walk over {@code keys}
 * precomputed key strings (each thread from its own offset), into one shared instance.
 *
 * <ul>
 *   <li>{@code windowRecord}: {@link KeyedWindows#record} with the per-key defaults (compact
 *       windows, 60 s in 12 buckets), latencies from {@link Latencies}.
 *   <li>{@code rateLimit}: {@link RateLimiter#tryAcquire(String)} at 1,000 requests per key per
 *       second (with 1k keys most calls are denied, with 100k most are admitted).
 *   <li>{@code mapFloor}: {@code ConcurrentHashMap.computeIfAbsent(key).increment()}: the cheapest
 *       keyed counter, a floor.
 * </ul>
 *
 * Every call reads the system clock where the structure needs time.
 *
 * <p>A JMH state shared by every benchmark thread; each thread's {@link Cursor} is its own.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar KeyedBenchmark -prof gc} (two
 * threads: {@code -t 2}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KeyedBenchmark {
  @Param({"1000", "100000"})
  public int keys;

  private String[] names;
  private KeyedWindows windows;
  private RateLimiter limiter;
  private ConcurrentHashMap<String, LongAdder> counters;
  private final AtomicInteger threadOffsets = new AtomicInteger();

  @Setup
  public void setUp() {
    names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = "tenant-" + i + "/GET /api/orders";
    }
    windows = KeyedWindows.builder().maximumKeys(keys).build();
    limiter =
        RateLimiter.inProcess(
            RateLimitConfig.builder().limit(1_000).window(Duration.ofSeconds(1)).build(), keys);
    counters = new ConcurrentHashMap<>();
  }

  /** Each thread's walk through the keys and the latencies. */
  @State(Scope.Thread)
  public static class Cursor {
    private String[] names;
    private int next;
    private Latencies.Cursor values;

    @Setup
    public void setUp(KeyedBenchmark shared) {
      int offset = shared.threadOffsets.getAndIncrement();
      names = shared.names;
      next = offset * (names.length / 2 + 1);
      values = new Latencies.Cursor(offset * 7919);
    }

    String key() {
      if (next >= names.length) {
        next = 0;
      }
      return names[next++];
    }
  }

  @Benchmark
  public void windowRecord(Cursor cursor) {
    windows.record(cursor.key(), cursor.values.next());
  }

  @Benchmark
  public void rateLimit(Cursor cursor, Blackhole bh) {
    bh.consume(limiter.tryAcquire(cursor.key()));
  }

  @Benchmark
  public void mapFloor(Cursor cursor) {
    counters.computeIfAbsent(cursor.key(), k -> new LongAdder()).increment();
  }
}
