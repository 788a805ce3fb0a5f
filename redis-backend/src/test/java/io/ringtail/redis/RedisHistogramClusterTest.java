package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.redis.testkit.LocalRedisCluster;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The histogram window on the real local 3-master cluster: one window's buckets spread over every
 * master, a snapshot reads them with one MGET per hash-tag group, several processes merge exactly,
 * and scripts load on each node after NOSCRIPT.
 */
@ExtendWith(RedisExtension.class)
class RedisHistogramClusterTest {
  private static LocalRedisCluster cluster;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> connection;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(LocalRedisCluster redisCluster) {
    cluster = redisCluster;
    client = cluster.newClient();
    client.setOptions(RedisBackend.failFastClusterClientOptions(Duration.ofSeconds(5)));
    connection = client.connect();
    backend = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  static void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private static int master(String key) {
    int slot = SlotHash.getSlot(key);
    for (int i = 0; i < 3; i++) {
      if (slot >= LocalRedisCluster.firstSlot(i) && slot <= LocalRedisCluster.lastSlot(i)) {
        return i;
      }
    }
    throw new IllegalStateException("slot " + slot);
  }

  @Test
  void oneWindow_mergesExactly_andASnapshotReadsItsOneNode() {
    RedisClient direct = RedisClient.create();
    try {
      for (RedisProcess node : cluster.nodes()) {
        try (StatefulRedisConnection<String, String> c = direct.connect(node.uri())) {
          c.sync().scriptFlush();
        }
      }
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
      // a fixed name (each run starts a fresh cluster), so where its 16 hash tags land is fixed too
      String name = "cluster-histogram{user}";
      List<RedisHistogramWindow> processes = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        processes.add(backend.histogramWindow(name).timeSource(time).build());
      }
      long firstBucket = Math.floorDiv(time.nanoTime(), Duration.ofSeconds(1).toNanos());
      long count = 0;
      long sum = 0;
      for (int second = 0; second < 60; second++) {
        if (second > 0) {
          time.advance(Duration.ofSeconds(1));
        }
        for (int i = 1; i <= 100; i++) {
          long value = 1_000L * i + second;
          processes.get(i % 3).record(value);
          count++;
          sum += value;
        }
      }
      for (RedisHistogramWindow p : processes) {
        assertThat(p.flush(Duration.ofSeconds(5))).isTrue();
      }
      for (RedisProcess node : cluster.nodes()) {
        try (StatefulRedisConnection<String, String> c = direct.connect(node.uri())) {
          c.sync().configResetstat();
        }
      }
      RedisHistogramSnapshot s = processes.get(0).snapshot();
      int reads = 0;
      for (RedisProcess node : cluster.nodes()) {
        try (StatefulRedisConnection<String, String> c = direct.connect(node.uri())) {
          String stats = c.sync().info("commandstats");
          assertThat(stats).as("a snapshot runs no script").doesNotContain("cmdstat_evalsha");
          java.util.regex.Matcher m =
              java.util.regex.Pattern.compile("cmdstat_mget:calls=(\\d+),").matcher(stats);
          reads += m.find() ? Integer.parseInt(m.group(1)) : 0;
        }
      }
      assertThat(reads)
          .as("a first read: one MGET of the head, one of the merged buckets")
          .isEqualTo(2);
      assertThat(s.count()).isEqualTo(count);
      assertThat(s.sum()).isEqualTo(sum);
      assertThat(s.min()).isEqualTo(1_000);
      assertThat(s.max()).isEqualTo(100_059);
      assertThat(s.valueAtPercentile(50))
          .isCloseTo(50_000, org.assertj.core.api.Assertions.within(600.0));
      assertThat(s.publishers()).isEqualTo(3);

      FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
      int g = FleetKeys.group("");
      int m = master(keys.head(g));
      try (StatefulRedisConnection<String, String> node =
          direct.connect(cluster.nodes().get(m).uri())) {
        for (long b = firstBucket; b < firstBucket + 60; b++) {
          assertThat(master(keys.bucket(g, "", b))).isEqualTo(m);
          assertThat(node.sync().exists(keys.bucket(g, "", b))).as("bucket %d", b).isEqualTo(1);
        }
        assertThat(node.sync().hlen(keys.inbox(g))).as("every batch merged").isZero();
      }
      assertThat(processes.get(0).stats().scriptReloads())
          .as("the window's node loaded the merge script after NOSCRIPT")
          .isGreaterThanOrEqualTo(1);
      for (RedisHistogramWindow p : processes) {
        assertThat(p.stats().failedCalls()).isZero();
      }
      assertThat(processes.stream().mapToLong(p -> p.stats().published()).sum()).isEqualTo(count);
    } finally {
      direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
