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
 * A real local Redis Cluster of three masters, with or without a replica each, formed without
 * {@code redis-cli}: CLUSTER ADDSLOTS of a third of the 16384 slots on each master, CLUSTER MEET,
 * CLUSTER REPLICATE for each replica, then a bounded wait until every node reports {@code
 * cluster_state:ok} and knows every node, and every replica is linked. Ports are below 55536 so the
 * bus ports (+10000) stay valid. Closing kills every node.
 */
public final class LocalRedisCluster implements AutoCloseable {
  public static final int SLOTS = 16384;
  private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);

  private final List<RedisProcess> nodes = new ArrayList<>();
  private final List<RedisProcess> replicas = new ArrayList<>();

  private LocalRedisCluster() {}

  /** Three masters, no replicas. */
  public static LocalRedisCluster start() {
    return start(false);
  }

  /** Three masters and, with {@code replicas}, one replica of each. */
  public static LocalRedisCluster start(boolean replicas) {
    LocalRedisCluster cluster = new LocalRedisCluster();
    try {
      for (int i = 0; i < 3; i++) {
        cluster.nodes.add(RedisProcess.start(RedisProcess.freePort(true), true));
      }
      for (int i = 0; replicas && i < 3; i++) {
        cluster.replicas.add(RedisProcess.start(RedisProcess.freePort(true), true));
      }
      cluster.form();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The masters as formed, master {@code i} serving slots {@link #firstSlot}(i) on. */
  public List<RedisProcess> nodes() {
    return nodes;
  }

  /** Replica {@code i} replicates master {@code i}; empty without replicas. */
  public List<RedisProcess> replicas() {
    return replicas;
  }

  /**
   * Waits until the live nodes agree that {@code replica} is a master and the cluster is ok again
   * (after its master was killed).
   */
  public void awaitPromoted(RedisProcess replica, Duration timeout) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> c = client.connect(replica.uri())) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!(c.sync().info("replication").contains("role:master")
          && c.sync().clusterInfo().contains("cluster_state:ok"))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "replica " + replica.port() + " not promoted: " + c.sync().clusterNodes());
        }
        RedisProcess.pollPause();
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** The first slot served by master {@code i} (0, 1 or 2). */
  public static int firstSlot(int i) {
    return i * SLOTS / 3;
  }

  /** The last slot served by master {@code i}. */
  public static int lastSlot(int i) {
    return (i + 1) * SLOTS / 3 - 1;
  }

  /** A client seeded with every node, replicas included. */
  public RedisClusterClient newClient() {
    List<RedisProcess> all = new ArrayList<>(nodes);
    all.addAll(replicas);
    return RedisClusterClient.create(all.stream().map(RedisProcess::uri).toList());
  }

  private void form() {
    RedisClient client = RedisClient.create();
    List<StatefulRedisConnection<String, String>> conns = new ArrayList<>();
    List<StatefulRedisConnection<String, String>> replicaConns = new ArrayList<>();
    try {
      for (RedisProcess n : nodes) {
        conns.add(client.connect(n.uri()));
      }
      for (RedisProcess n : replicas) {
        replicaConns.add(client.connect(n.uri()));
      }
      for (int i = 0; i < nodes.size(); i++) {
        int[] slots = IntStream.rangeClosed(firstSlot(i), lastSlot(i)).toArray();
        conns.get(i).sync().clusterAddSlots(slots);
      }
      for (int i = 1; i < nodes.size(); i++) {
        conns.get(0).sync().clusterMeet("127.0.0.1", nodes.get(i).port());
      }
      for (RedisProcess r : replicas) {
        conns.get(0).sync().clusterMeet("127.0.0.1", r.port());
      }
      long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
      for (int i = 0; i < replicas.size(); i++) {
        String master = conns.get(i).sync().clusterMyId();
        RedisCommands<String, String> replica = replicaConns.get(i).sync();
        while (!replica.clusterNodes().contains(master)) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("replica does not know its master " + master);
          }
          RedisProcess.pollPause();
        }
        replica.clusterReplicate(master);
      }
      conns.addAll(replicaConns);
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

  private boolean formed(List<StatefulRedisConnection<String, String>> conns) {
    int known = nodes.size() + replicas.size();
    for (StatefulRedisConnection<String, String> c : conns) {
      RedisCommands<String, String> sync = c.sync();
      String info = sync.clusterInfo();
      if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + known)) {
        return false;
      }
      String all = sync.clusterNodes();
      long masters = all.lines().filter(l -> l.contains("master")).count();
      long linked = all.lines().filter(l -> l.contains("slave") && l.contains("connected")).count();
      if (masters != 3 || linked != replicas.size()) {
        return false;
      }
      if (sync.info("replication").contains("role:slave")
          && !sync.info("replication").contains("master_link_status:up")) {
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
    for (RedisProcess n : replicas) {
      n.close();
    }
  }
}
