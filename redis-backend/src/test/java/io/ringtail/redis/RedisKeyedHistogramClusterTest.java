package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.redis.testkit.LocalRedisCluster;
import io.ringtail.redis.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keyed histogram windows on the real local 3-master cluster: keys spread over the masters, each
 * key's buckets on one, and three processes merge exactly per key.
 */
@ExtendWith(RedisExtension.class)
class RedisKeyedHistogramClusterTest {
  private static LocalRedisCluster cluster;
  private static final List<RedisClusterClient> clients = new ArrayList<>();

  @BeforeAll
  static void connect(LocalRedisCluster redisCluster) {
    cluster = redisCluster;
  }

  @AfterAll
  static void close() {
    for (RedisClusterClient c : clients) {
      c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static RedisBackend process() {
    RedisClusterClient client = cluster.newClient();
    client.setOptions(RedisBackend.failFastClusterClientOptions(Duration.ofSeconds(5)));
    clients.add(client);
    StatefulRedisClusterConnection<String, String> connection = client.connect();
    return RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(5)).build();
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
  void keysSpreadOverTheMasters_andMergeExactlyPerKey() throws Exception {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    // a fixed name (each run starts a fresh cluster), so where its keys land is fixed too
    String name = "cluster-keyed";
    List<RedisKeyedHistogramWindows> processes = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      processes.add(
          process()
              .keyedHistogramWindows(name)
              .timeSource(time)
              // only the flushes publish: one delta per process, key and bucket
              .publishInterval(Duration.ofMinutes(1))
              .build());
    }
    int routes = 12;
    long firstBucket = Math.floorDiv(time.nanoTime(), Duration.ofSeconds(1).toNanos());
    for (int second = 0; second < 30; second++) {
      if (second > 0) {
        time.advance(Duration.ofSeconds(1));
      }
      for (int r = 0; r < routes; r++) {
        for (int i = 1; i <= 20; i++) {
          processes.get(i % 3).record("route-" + r, 1_000L * i + r);
        }
      }
    }
    for (RedisKeyedHistogramWindows p : processes) {
      assertThat(p.flush(Duration.ofSeconds(5))).isTrue();
    }
    FleetKeys keys = new FleetKeys("ringtail", name, Duration.ofSeconds(1).toNanos(), 2, 1);
    int[] keysOnMaster = new int[3];
    RedisClient direct = RedisClient.create();
    try {
      RedisKeyedHistogramWindows observer = processes.get(0);
      Map<String, WindowSnapshot> all = observer.snapshots();
      assertThat(all).hasSize(routes);
      // each group's merger writes its summary on its group's master; one read, one GET a group
      for (RedisKeyedHistogramWindows p : processes) {
        p.tick().get(5, TimeUnit.SECONDS);
      }
      Map<String, FleetSummary> summaries = observer.summaries();
      assertThat(summaries).hasSize(routes);
      for (int r = 0; r < routes; r++) {
        String route = "route-" + r;
        int g = FleetKeys.group(route);
        int m = master(keys.head(g));
        try (StatefulRedisConnection<String, String> node =
            direct.connect(cluster.nodes().get(m).uri())) {
          for (long b = firstBucket; b < firstBucket + 30; b++) {
            assertThat(master(keys.bucket(g, route, b))).isEqualTo(m);
            assertThat(node.sync().type(keys.bucket(g, route, b)))
                .as(
                    "%s bucket %d on master %d: one merged value, whatever the processes",
                    route, b, m)
                .isEqualTo("string");
          }
          assertThat(node.sync().hlen(keys.inbox(g))).as("every batch merged").isZero();
        }
        RedisKeyedHistogramWindows reader =
            process().keyedHistogramWindows(name).timeSource(time).build();
        for (RedisKeyedHistogramWindows w : List.of(observer, reader)) {
          RedisHistogramSnapshot s = w.snapshot(route);
          assertThat(s.count()).as(route).isEqualTo(30 * 20);
          assertThat(s.min()).isEqualTo(1_000 + r);
          assertThat(s.max()).isEqualTo(20_000 + r);
          assertThat(s.publishers()).isEqualTo(3);
        }
        assertThat(all.get(route).count()).isEqualTo(30 * 20);
        FleetSummary summary = summaries.get(route);
        assertThat(summary.count()).as(route).isEqualTo(30 * 20);
        assertThat(summary.min()).isEqualTo(1_000 + r);
        assertThat(summary.max()).isEqualTo(20_000 + r);
        assertThat(summary.valueAtPercentile(95))
            .isEqualTo(observer.snapshot(route).valueAtPercentile(95));
        assertThat(master(keys.summary(g))).isEqualTo(m);
        assertThat(processes.stream().filter(p -> p.owns(route)).count())
            .as("owners of " + route)
            .isEqualTo(1);
        reader.close();
        keysOnMaster[m]++;
      }
    } finally {
      direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    for (int m = 0; m < 3; m++) {
      assertThat(keysOnMaster[m]).as("keys on master %d", m).isPositive();
    }
    for (RedisKeyedHistogramWindows p : processes) {
      assertThat(p.stats().failedCalls()).isZero();
    }
    assertThat(processes.stream().mapToLong(p -> p.stats().published()).sum())
        .isEqualTo(30L * routes * 20);
  }
}
