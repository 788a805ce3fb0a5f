package io.ringtail.redis.testkit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A real local Redis Cluster of three masters (no replicas), formed without {@code redis-cli}:
 * CLUSTER MEET, then CLUSTER ADDSLOTS of a third of the 16384 slots on each node, then a bounded
 * wait until every node reports {@code cluster_state:ok} and knows three masters. Ports are below
 * 55536 so the bus ports (+10000) stay valid. Closing kills every node.
 */
public final class LocalRedisCluster implements AutoCloseable {
  public static final int SLOTS = 16384;
  private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);

  private final List<RedisProcess> nodes = new ArrayList<>();

  private LocalRedisCluster() {}

  public static LocalRedisCluster start() {
    LocalRedisCluster cluster = new LocalRedisCluster();
    try {
      for (int i = 0; i < 3; i++) {
        cluster.nodes.add(RedisProcess.start(RedisProcess.freePort(true), true));
      }
      cluster.form();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  public List<RedisProcess> nodes() {
    return nodes;
  }

  /** The first slot served by master {@code i} (0, 1 or 2). */
  public static int firstSlot(int i) {
    return i * SLOTS / 3;
  }

  /** The last slot served by master {@code i}. */
  public static int lastSlot(int i) {
    return (i + 1) * SLOTS / 3 - 1;
  }

  public RedisClusterClient newClient() {
    return RedisClusterClient.create(nodes.stream().map(RedisProcess::uri).toList());
  }

  private void form() {
    RedisClient client = RedisClient.create();
    List<StatefulRedisConnection<String, String>> conns = new ArrayList<>();
    try {
      for (RedisProcess n : nodes) {
        conns.add(client.connect(n.uri()));
      }
      for (int i = 0; i < nodes.size(); i++) {
        int[] slots = IntStream.rangeClosed(firstSlot(i), lastSlot(i)).toArray();
        conns.get(i).sync().clusterAddSlots(slots);
      }
      for (int i = 1; i < nodes.size(); i++) {
        conns.get(0).sync().clusterMeet("127.0.0.1", nodes.get(i).port());
      }
      long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
      while (!formed(conns)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "cluster did not reach cluster_state:ok: " + conns.get(0).sync().clusterInfo());
        }
        RedisProcess.pollPause();
      }
    } finally {
      conns.forEach(StatefulRedisConnection::close);
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static boolean formed(List<StatefulRedisConnection<String, String>> conns) {
    for (StatefulRedisConnection<String, String> c : conns) {
      RedisCommands<String, String> sync = c.sync();
      String info = sync.clusterInfo();
      if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:3")) {
        return false;
      }
      long masters = sync.clusterNodes().lines().filter(l -> l.contains("master")).count();
      if (masters != 3) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    for (RedisProcess n : nodes) {
      n.close();
    }
  }
}
