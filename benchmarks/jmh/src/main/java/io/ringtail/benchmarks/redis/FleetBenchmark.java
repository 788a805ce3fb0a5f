package io.ringtail.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.HistogramSnapshot;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The histogram window's local costs beside the in-process window, in one JMH run:
 *
 * <ul>
 *   <li>{@code recordInProcess} / {@code recordHistogramWindow}: one {@code record} into a shared
 *       window, two threads; the histogram window reads the Redis server's time base and publishes
 *       every second to the server at {@code -Dringtail.bench.redis.port} (or one it starts), so
 *       its cost includes publication amortised over the records.
 *   <li>{@code mergeAddCounts} / {@code mergeRebuild}: sixty 1-second snapshots of about 5,000
 *       samples each merged into one, by {@link HistogramSnapshot#merge} (count arrays added) and
 *       by the previous algorithm (each step rebuilds both HdrHistograms, adds them, and iterates
 *       the result back into counts), re-enacted with HdrHistogram's public API.
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar FleetBenchmark -prof gc}.
 */
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FleetBenchmark {
  private static final int SLOTS = WindowConfig.defaults().countsArrayLength();

  /** The two windows under test and the Redis server the histogram window publishes to. */
  @State(Scope.Benchmark)
  public static class Windows {
    RedisProcess ownServer;
    RedisClient client;
    StatefulRedisConnection<String, String> connection;
    RollingWindow inProcess;
    RedisHistogramWindow histogram;
    final AtomicInteger offsets = new AtomicInteger();

    @Setup
    public void setUp() {
      String port = System.getProperty(RedisBenchmark.PORT_PROPERTY);
      RedisURI uri;
      if (port != null) {
        uri = RedisURI.create("127.0.0.1", Integer.parseInt(port));
      } else {
        ownServer = RedisProcess.start();
        uri = ownServer.uri();
      }
      client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(1)));
      connection = client.connect(uri);
      RedisBackend backend =
          RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(1)).build();
      inProcess = RollingWindow.create(WindowConfig.defaults());
      histogram = backend.histogramWindow("bench-jmh-histogram-" + System.nanoTime()).build();
    }

    @TearDown
    public void tearDown() {
      histogram.close();
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      if (ownServer != null) {
        ownServer.close();
      }
    }
  }

  /** Each thread's own walk through the shared latencies. */
  @State(Scope.Thread)
  public static class Values {
    Latencies.Cursor cursor;

    @Setup
    public void setUp(Windows windows) {
      cursor = new Latencies.Cursor(windows.offsets.getAndIncrement() * 7919);
    }
  }

  /** Sixty 1-second snapshots of a log-normal latency stream. */
  @State(Scope.Benchmark)
  public static class Seconds {
    final HistogramSnapshot[] snapshots = new HistogramSnapshot[60];

    @Setup
    public void setUp() {
      SplittableRandom random = new SplittableRandom(60);
      for (int s = 0; s < snapshots.length; s++) {
        ManualTimeSource time = new ManualTimeSource(s * 1_000_000_000L);
        RollingWindow second = RollingWindow.create(WindowConfig.defaults(), time);
        for (int i = 0; i < 5_000; i++) {
          double g =
              Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
                  * Math.cos(2 * Math.PI * random.nextDouble());
          second.record((long) Math.exp(14 + 0.8 * g));
        }
        snapshots[s] = (HistogramSnapshot) second.snapshot();
      }
    }
  }

  @Benchmark
  @Threads(2)
  public void recordInProcess(Windows w, Values v) {
    w.inProcess.record(v.cursor.next());
  }

  @Benchmark
  @Threads(2)
  public void recordHistogramWindow(Windows w, Values v) {
    w.histogram.record(v.cursor.next());
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public HistogramSnapshot mergeAddCounts(Seconds s) {
    HistogramSnapshot merged = s.snapshots[0];
    for (int i = 1; i < s.snapshots.length; i++) {
      merged = merged.merge(s.snapshots[i]);
    }
    return merged;
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public long[] mergeRebuild(Seconds s) {
    Histogram merged = s.snapshots[0].histogram();
    long[] counts = null;
    for (int i = 1; i < s.snapshots.length; i++) {
      Histogram rebuilt =
          new Histogram(
              merged.getLowestDiscernibleValue(),
              merged.getHighestTrackableValue(),
              merged.getNumberOfSignificantValueDigits());
      for (HistogramIterationValue v : merged.recordedValues()) {
        rebuilt.recordValueWithCount(v.getValueIteratedTo(), v.getCountAtValueIteratedTo());
      }
      rebuilt.setAutoResize(true);
      rebuilt.add(s.snapshots[i].histogram());
      counts = new long[SLOTS];
      int k = 0;
      for (HistogramIterationValue v : rebuilt.recordedValues()) {
        counts[k++] += v.getCountAtValueIteratedTo();
      }
      merged = rebuilt;
    }
    return counts;
  }
}
