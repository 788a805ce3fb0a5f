package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.WindowSnapshot;
import io.ringtail.benchmarks.toolkit.Latencies;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The raw-sample window row beside the fleet report's histogram window: writers, each on its own
 * connection, recording into one raw window as fast as they can; samples stored, the server's CPU
 * and memory, and one snapshot's latency. Runs on the calling thread and its writer threads.
 */
final class RawWindowRow {
  private RawWindowRow() {}

  /** Runs the row for {@code seconds} and appends its table to {@code report}. */
  static void measure(
      RedisProcess server,
      StatefulRedisConnection<String, String> admin,
      int writers,
      int seconds,
      StringBuilder report)
      throws Exception {
    String name = "raw-" + System.nanoTime();
    RedisCommands<String, String> redis = admin.sync();
    List<RedisClient> clients = new ArrayList<>();
    List<RedisRollingWindow> windows = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      RedisClient c = RedisClient.create();
      c.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      clients.add(c);
      RedisBackend b =
          RedisBackend.builder(c.connect(server.uri()))
              .commandTimeout(Duration.ofSeconds(2))
              .build();
      windows.add(b.window(name).maxSamples(10_000_000).build());
    }
    AtomicBoolean stop = new AtomicBoolean();
    double cpu0 = ServerReadings.cpuSeconds(redis);
    long wall0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (RedisRollingWindow w : windows) {
      Thread t =
          new Thread(
              () -> {
                Latencies.Cursor cursor = new Latencies.Cursor(threads.size() * 7919);
                while (!stop.get()) {
                  w.record(cursor.next());
                }
                w.flush(Duration.ofSeconds(20));
              });
      threads.add(t);
      t.start();
    }
    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    double wall = (System.nanoTime() - wall0) / 1e9;
    double cpu = ServerReadings.cpuSeconds(redis) - cpu0;
    long stored = windows.stream().mapToLong(w -> w.stats().stored()).sum();
    long dropped = windows.stream().mapToLong(w -> w.stats().dropped()).sum();
    long[] keys = new long[1];
    long memory = ServerReadings.memoryOf(redis, "ringtail:{" + name + "}*", keys);
    long t = System.nanoTime();
    WindowSnapshot s = windows.get(0).snapshot(95);
    double snapMs = (System.nanoTime() - t) / 1e6;
    report.append(
        String.format(
            "Raw-sample window beside it: %d writers (each its own connection) as fast as they can, %d s, "
                + "maxSamples 10,000,000.%n%n",
            writers, seconds));
    report.append("| raw window figure | value |\n|---|---|\n");
    report.append(
        String.format(
            "| samples stored | %,d (%,.0f samples/s), dropped %d |%n",
            stored, stored / wall, dropped));
    report.append(String.format("| Redis server CPU | %.1f %% of one core |%n", 100 * cpu / wall));
    report.append(
        String.format(
            "| Redis memory (MEMORY USAGE, %d keys) | %,d bytes (%.0f B/sample) |%n",
            keys[0], memory, memory / (double) Math.max(1, s.count())));
    report.append(
        String.format("| one snapshot(95) at %,d samples | %.1f ms |%n%n", s.count(), snapMs));
    for (RedisClient c : clients) {
      c.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
  }
}
