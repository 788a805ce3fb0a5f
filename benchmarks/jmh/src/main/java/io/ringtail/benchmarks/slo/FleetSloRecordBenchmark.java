package io.ringtail.benchmarks.slo;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.TimeSource;
import io.ringtail.benchmarks.redis.RedisBenchmark;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisServiceLevel;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.slo.ServiceLevel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a fleet-wide service level costs a request, beside the in-process one: per call, one request
 * recorded into ONE shared instance of {@link SloRecordBenchmark#CONFIG} (one latency and one
 * availability objective, 30 days, the workbook's alerts), at one thread ({@code record1}) and two
 * ({@code record2}), each call reading the service level's time source once (the system clock
 * in-process; the fleet's, the Redis server's clock as a local reading plus an offset) and passing
 * it on.
 *
 * <ul>
 *   <li>{@code IN_PROCESS}: {@code ServiceLevel.inProcess};
 *   <li>{@code FLEET}: {@code RedisBackend.serviceLevel}, publishing every second to the server at
 *       {@code -Dringtail.bench.redis.port} (or one it starts) while the benchmark records.
 * </ul>
 *
 * Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar FleetSloRecordBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FleetSloRecordBenchmark {
  /** Where the service level keeps its counts. */
  public enum Store {
    IN_PROCESS,
    FLEET
  }

  @Param({"IN_PROCESS", "FLEET"})
  public Store store;

  private RedisProcess ownServer;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private ServiceLevel slo;
  private TimeSource time;
  private final AtomicInteger threadOffsets = new AtomicInteger();

  @Setup
  public void setUp() {
    if (store == Store.IN_PROCESS) {
      slo = ServiceLevel.inProcess(SloRecordBenchmark.CONFIG);
      time = slo.timeSource();
      return;
    }
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
    slo = backend.serviceLevel(SloRecordBenchmark.CONFIG);
    time = slo.timeSource();
  }

  @TearDown
  public void tearDown() {
    if (slo instanceof RedisServiceLevel fleet) {
      fleet.close();
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
    if (ownServer != null) {
      ownServer.close();
    }
  }

  /** Each thread's own walk through the shared latencies. */
  @State(Scope.Thread)
  public static class Requests {
    Latencies.Cursor cursor;

    @Setup
    public void setUp(FleetSloRecordBenchmark shared) {
      cursor = new Latencies.Cursor(shared.threadOffsets.getAndIncrement() * 7919);
    }
  }

  private void request(Requests requests) {
    long latency = requests.cursor.next();
    slo.recordAt(latency, (latency & 1023) == 0, time.nanoTime());
  }

  @Benchmark
  @Threads(1)
  public void record1(Requests requests) {
    request(requests);
  }

  @Benchmark
  @Threads(2)
  public void record2(Requests requests) {
    request(requests);
  }
}
