package io.ringtail.redis.testkit;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real Sentinel-managed group on loopback: a primary, {@code replicas} replicas of it and three
 * sentinels monitoring it as {@value #MASTER} (quorum 2, a server down after {@value
 * #DOWN_AFTER_MILLIS} ms without an answer, a failed failover retried after 6 s), each on a free
 * port. {@link #start} returns once every replica is linked and every sentinel knows the replicas
 * and the other sentinels, so a failover can start at once. Closing kills every process. Not
 * thread-safe; one test drives one group.
 */
public final class LocalSentinelGroup implements AutoCloseable {
  /** The name the sentinels monitor the primary under. */
  public static final String MASTER = "ringtail";

  /** How long a primary must not answer before a sentinel deems it down. */
  public static final int DOWN_AFTER_MILLIS = 1000;

  private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);

  private final List<RedisProcess> servers = new ArrayList<>();
  private final List<RedisProcess> sentinels = new ArrayList<>();
  private final RedisClient admin = RedisClient.create();
  private final List<StatefulRedisConnection<String, String>> detached = new ArrayList<>();

  private LocalSentinelGroup() {}

  /** A primary, one replica and three sentinels. */
  public static LocalSentinelGroup start() {
    return start(1, List.of());
  }

  /**
   * A primary and {@code replicas} replicas whose configs end with {@code serverConf}, and three
   * sentinels.
   */
  public static LocalSentinelGroup start(int replicas, List<String> serverConf) {
    LocalSentinelGroup group = new LocalSentinelGroup();
    try {
      RedisProcess primary = RedisProcess.start(RedisProcess.freePort(false), serverConf);
      group.servers.add(primary);
      for (int i = 0; i < replicas; i++) {
        List<String> conf = new ArrayList<>(serverConf);
        conf.add("replicaof 127.0.0.1 " + primary.port());
        group.servers.add(RedisProcess.start(RedisProcess.freePort(false), conf));
      }
      for (int i = 0; i < 3; i++) {
        group.sentinels.add(
            RedisProcess.startSentinel(
                RedisProcess.freePort(false),
                List.of(
                    "sentinel monitor " + MASTER + " 127.0.0.1 " + primary.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MILLIS,
                    "sentinel failover-timeout " + MASTER + " 3000",
                    "sentinel parallel-syncs " + MASTER + " 1")));
      }
      group.awaitFormed(replicas);
      return group;
    } catch (RuntimeException e) {
      group.close();
      throw e;
    }
  }

  /**
   * Lettuce resources whose reconnect delay grows from 10 ms to at most 100 ms (Lettuce's default
   * grows to 30 s), so a client tries the new primary soon after a failover, as docs/failover.md
   * recommends; the caller shuts them down.
   */
  public static ClientResources fastReconnect() {
    return ClientResources.builder()
        .reconnectDelay(
            Delay.exponential(
                Duration.ofMillis(10), Duration.ofMillis(100), 2, TimeUnit.MILLISECONDS))
        .build();
  }

  /** Every server, the first started as the primary, whether it still is or not. */
  public List<RedisProcess> servers() {
    return servers;
  }

  public List<RedisProcess> sentinels() {
    return sentinels;
  }

  /**
   * The Sentinel URI of the group ({@code redis-sentinel://...#ringtail}) with a 5 s timeout: a
   * client connects to whichever server the sentinels name as primary, and reconnects likewise.
   */
  public RedisURI uri() {
    RedisURI.Builder b = RedisURI.Builder.sentinel("127.0.0.1", sentinels.get(0).port(), MASTER);
    for (int i = 1; i < sentinels.size(); i++) {
      b.withSentinel("127.0.0.1", sentinels.get(i).port());
    }
    return b.withTimeout(Duration.ofSeconds(5)).build();
  }

  /** The server the first sentinel that answers names as primary now. */
  public RedisProcess primary() {
    int port = primaryPort();
    return servers.stream()
        .filter(s -> s.port() == port)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("the sentinels name port " + port));
  }

  /**
   * Waits until the sentinels name a primary other than {@code old} and it answers as a primary;
   * returns it.
   */
  public RedisProcess awaitFailover(RedisProcess old, Duration timeout) {
    await(
        timeout,
        "the sentinels to promote a replica of " + old.port(),
        () -> {
          int port = primaryPort();
          return port != old.port() && role(port).equals("master");
        });
    return primary();
  }

  /**
   * Makes {@code replica} miss every write from now until it is resumed: in one transaction on it,
   * {@code CLIENT KILL TYPE master} cuts its link to the primary and {@code DEBUG SLEEP 0.8} keeps
   * it from reconnecting (it would at once, and resynchronize what it missed); once the primary has
   * let go of the link, SIGSTOP holds it for as long as the test needs. The sleep runs on in wall
   * time while stopped: resumed after it ended, the replica answers at once (under a second of
   * silence, the sentinels do not deem it down). Stopping alone is not enough: what the primary
   * sent meanwhile waits in the replica's socket buffer and is read on SIGCONT. {@link
   * RedisProcess#resume()} lets it go on (and reconnect).
   */
  public void detachAndPause(RedisProcess replica) {
    StatefulRedisConnection<String, String> c = admin.connect(replica.uri());
    detached.add(c);
    var async = c.async();
    async.multi();
    async.clientKill(KillArgs.Builder.typeMaster());
    async.dispatch(
        CommandType.DEBUG,
        new StatusOutput<>(StringCodec.UTF8),
        new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add("0.8"));
    RedisFuture<TransactionResult> exec = async.exec();
    RedisProcess primary = primary();
    await(
        Duration.ofSeconds(2),
        "the primary to lose its link to " + replica.port(),
        () -> info(primary.port(), "replication").contains("connected_slaves:0"));
    replica.pause();
    if (exec.isDone()) {
      throw new IllegalStateException(
          "replica " + replica.port() + " woke from DEBUG SLEEP before SIGSTOP reached it");
    }
  }

  /** Waits until every live replica has every write the primary acknowledged so far. */
  public void awaitReplicated(Duration timeout) {
    RedisProcess primary = primary();
    long live = servers.stream().filter(s -> s != primary && s.isAlive()).count();
    try (StatefulRedisConnection<String, String> c = admin.connect(primary.uri())) {
      long acked = c.sync().waitForReplication((int) live, timeout.toMillis());
      if (acked < live) {
        throw new IllegalStateException(acked + " of " + live + " replicas caught up");
      }
    }
  }

  private void awaitFormed(int replicas) {
    RedisProcess primary = servers.get(0);
    await(
        FORM_TIMEOUT,
        "replicas linked and sentinels acquainted",
        () -> {
          String info = info(primary.port(), "replication");
          if (!info.contains("connected_slaves:" + replicas)
              || info.lines().filter(l -> l.contains("state=online")).count() < replicas) {
            return false;
          }
          for (RedisProcess s : sentinels) {
            String known = sentinelField(s, "num-slaves");
            String others = sentinelField(s, "num-other-sentinels");
            if (!String.valueOf(replicas).equals(known) || !"2".equals(others)) {
              return false;
            }
          }
          return true;
        });
  }

  private String sentinelField(RedisProcess sentinel, String field) {
    try (StatefulRedisSentinelConnection<String, String> c =
        admin.connectSentinel(sentinel.uri())) {
      return c.sync().master(MASTER).get(field);
    }
  }

  private int primaryPort() {
    RuntimeException last = null;
    for (RedisProcess s : sentinels) {
      if (!s.isAlive()) {
        continue;
      }
      try (StatefulRedisSentinelConnection<String, String> c = admin.connectSentinel(s.uri())) {
        SocketAddress a = c.sync().getMasterAddrByName(MASTER);
        return ((InetSocketAddress) a).getPort();
      } catch (RuntimeException e) {
        last = e;
      }
    }
    throw new IllegalStateException("no sentinel answered", last);
  }

  private String role(int port) {
    try {
      return info(port, "replication").contains("role:master") ? "master" : "replica";
    } catch (RuntimeException e) {
      return "unreachable";
    }
  }

  private String info(int port, String section) {
    RedisURI uri = RedisURI.create("127.0.0.1", port);
    uri.setTimeout(Duration.ofSeconds(2));
    try (StatefulRedisConnection<String, String> c = admin.connect(uri)) {
      RedisCommands<String, String> sync = c.sync();
      return sync.info(section);
    }
  }

  private static void await(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
      }
      RedisProcess.pollPause();
    }
  }

  @Override
  public void close() {
    for (RedisProcess s : sentinels) {
      s.close();
    }
    for (RedisProcess s : servers) {
      s.close();
    }
    detached.forEach(StatefulRedisConnection::close);
    admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
