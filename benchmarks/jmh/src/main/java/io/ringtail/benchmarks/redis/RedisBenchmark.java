package io.ringtail.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.WindowSnapshot;
import io.ringtail.benchmarks.toolkit.RedisKeys;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.RedisWindowStats;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Redis window against a real {@code redis-server} on 127.0.0.1, one thread, one connection:
 *
 * <ul>
 *   <li>{@code ingest}: {@link RedisRollingWindow#record(long)} throughput in samples/s, batched
 *       and pipelined as the library does (up to 256 samples per script call, 4 calls in flight).
 *       Each operation records {@value #INGEST_BATCH} samples and then {@code flush}es, so every
 *       counted sample has been stored by Redis; the window's keys are deleted after each
 *       iteration.
 *   <li>{@code query}: {@link RedisRollingWindow#snapshot(double...)} with P95 on a window holding
 *       {@code samples} samples (1k and 100k), sampled latency (JMH reports its percentiles).
 * </ul>
 *
 * The server is the one at {@code -Dringtail.bench.redis.port} if set (so the Redis report can put
 * {@code redis-benchmark} on the same server in the same run), else one this benchmark starts
 * itself on a free port ({@code redis-server} from the PATH, else the binary bundled in {@code
 * org.signal:embedded-redis}).
 *
 * <p>A JMH state per benchmark; the window is shared by nothing else.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar RedisBenchmark}; with {@code
 * redis-benchmark} in the same run and the ratios: {@code java -cp
 * benchmarks/reports/target/reports.jar io.ringtail.benchmarks.report.RedisReport}.
 */
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
public class RedisBenchmark {
  /** Samples recorded per {@code ingest} operation before it flushes. */
  public static final int INGEST_BATCH = 10_000;

  public static final String PORT_PROPERTY = "ringtail.bench.redis.port";
  static final String INGEST_WINDOW = "bench-jmh-ingest";

  /** One connection to the benchmark's Redis server (started here unless a port is given). */
  @State(Scope.Benchmark)
  public static class Server {
    RedisProcess process;
    RedisClient client;
    StatefulRedisConnection<String, String> connection;
    RedisBackend backend;

    @Setup(Level.Trial)
    public void start() {
      String port = System.getProperty(PORT_PROPERTY);
      RedisURI uri;
      if (port == null) {
        process = RedisProcess.start();
        uri = process.uri();
      } else {
        uri =
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(Integer.parseInt(port))
                .withTimeout(Duration.ofSeconds(10))
                .build();
      }
      client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(10)));
      connection = client.connect(uri);
      backend = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(10)).build();
    }

    @TearDown(Level.Trial)
    public void stop() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      if (process != null) {
        process.close();
      }
    }

    void delete(String window) {
      connection.sync().del(RedisKeys.window("ringtail", window));
    }
  }

  /** The ingest window; emptied after every iteration so Redis memory stays bounded. */
  @State(Scope.Benchmark)
  public static class IngestWindow {
    RedisRollingWindow window;
    Server server;

    @Setup(Level.Trial)
    public void build(Server server) {
      this.server = server;
      server.delete(INGEST_WINDOW);
      window = server.backend.window(INGEST_WINDOW).maxSamples(10_000_000).build();
    }

    @TearDown(Level.Iteration)
    public void empty() {
      RedisWindowStats stats = window.stats();
      if (stats.stored() != stats.recorded()) {
        throw new IllegalStateException("samples not stored: " + stats);
      }
      server.delete(INGEST_WINDOW);
    }
  }

  /** A window filled with {@code samples} samples before the trial. */
  @State(Scope.Benchmark)
  public static class QueryWindow {
    @Param({"1000", "100000"})
    public int samples;

    RedisRollingWindow window;
    Server server;
    String name;

    @Setup(Level.Trial)
    public void fill(Server server) {
      this.server = server;
      name = "bench-jmh-query-" + samples;
      server.delete(name);
      window = filled(server.backend, name, samples);
    }

    @TearDown(Level.Trial)
    public void empty() {
      server.delete(name);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(INGEST_BATCH)
  public long ingest(IngestWindow w) {
    RedisRollingWindow window = w.window;
    for (int i = 0; i < INGEST_BATCH; i++) {
      window.record(42);
    }
    if (!window.flush(Duration.ofMinutes(2))) {
      throw new IllegalStateException("not flushed: " + window.stats());
    }
    return window.stats().stored();
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public WindowSnapshot query(QueryWindow w) {
    WindowSnapshot snapshot = w.window.snapshot(95);
    if (snapshot.count() != w.samples) {
      throw new IllegalStateException(
          "expected " + w.samples + " samples, but was " + snapshot.count());
    }
    return snapshot;
  }

  /** A 60 s window named {@code name} holding {@code n} samples (values spread over 0..100,002). */
  public static RedisRollingWindow filled(RedisBackend backend, String name, int n) {
    RedisRollingWindow w = backend.window(name).maxSamples(10_000_000).build();
    for (int i = 0; i < n; i++) {
      w.record(i * 7L % 100_003);
    }
    if (!w.flush(Duration.ofMinutes(1))) {
      throw new IllegalStateException("not flushed: " + w.stats());
    }
    return w;
  }
}
