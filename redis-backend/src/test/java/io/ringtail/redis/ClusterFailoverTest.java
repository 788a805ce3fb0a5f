package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.testkit.LocalRedisCluster;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * On a cluster of three masters with a replica each, the backend follows a replica's promotion: the
 * master serving a limiter's key and a window is killed (SIGKILL) after its replica caught up; once
 * the cluster promoted the replica, decisions and the window carry on there with their state
 * ({@link RedisBackend#failFastClusterClientOptions} re-reads the topology).
 */
class ClusterFailoverTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);
  private static final Duration FAILOVER = Duration.ofSeconds(30);

  /** A name whose key (as {@code keyOf} gives it) master {@code i} serves. */
  private static String onMaster(
      int i, String base, java.util.function.Function<String, String> keyOf) {
    Predicate<String> served =
        n -> {
          int slot = SlotHash.getSlot(keyOf.apply(n));
          return slot >= LocalRedisCluster.firstSlot(i) && slot <= LocalRedisCluster.lastSlot(i);
        };
    for (int k = 0; ; k++) {
      if (served.test(base + k)) {
        return base + k;
      }
    }
  }

  private static String onMaster0(String base, java.util.function.Function<String, String> keyOf) {
    return onMaster(0, base, keyOf);
  }

  @Test
  void killedMaster_decisionsAndWindowsCarryOnOnThePromotedReplica() {
    ClientResources resources = LocalSentinelGroup.fastReconnect();
    try (LocalRedisCluster cluster = LocalRedisCluster.start(true)) {
      RedisClusterClient client =
          RedisClusterClient.create(
              resources, cluster.nodes().stream().map(RedisProcess::uri).toList());
      client.setOptions(RedisBackend.failFastClusterClientOptions(TIMEOUT));
      try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
        RedisBackend backend =
            RedisBackend.builder(connection)
                .commandTimeout(TIMEOUT)
                .outagePolicy(OutagePolicy.THROW)
                .build();
        String user = onMaster0("user", k -> RedisTestKit.rateLimiterKeys("ringtail", "c", k)[0]);
        String name = onMaster0("w", n -> RedisTestKit.windowKeys("ringtail", n)[0]);
        RateLimiter limiter =
            backend.rateLimiter(
                "c",
                RateLimitConfig.builder()
                    .limit(10)
                    .timeSource(new ManualTimeSource(1_000_000_000_000L))
                    .build());
        RedisRollingWindow window = backend.window(name).length(Duration.ofMinutes(5)).build();
        for (int i = 0; i < 6; i++) {
          assertThat(limiter.tryAcquire(user).allowed()).isTrue();
        }
        for (int i = 1; i <= 100; i++) {
          window.record(i);
        }
        assertThat(window.flush(Duration.ofSeconds(5))).isTrue();
        RedisClient direct = RedisClient.create();
        try (StatefulRedisConnection<String, String> master =
            direct.connect(cluster.nodes().get(0).uri())) {
          assertThat(master.sync().waitForReplication(1, 10_000)).isEqualTo(1);
        } finally {
          direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }

        cluster.nodes().get(0).kill();
        cluster.awaitPromoted(cluster.replicas().get(0), FAILOVER);
        assertThat(
                RedisTestSupport.awaitDecided(
                    FAILOVER,
                    "a decision on the promoted replica",
                    () -> limiter.tryAcquire(user).allowed()))
            .isTrue();
        int more = 0;
        // one breaker guards every node: until the whole cluster answers again it may open anew
        while (RedisTestSupport.awaitDecided(
            FAILOVER, "a decision answered", () -> limiter.tryAcquire(user).allowed())) {
          more++;
        }
        assertThat(more).as("admitted after the promotion besides the first").isEqualTo(3);
        assertThat(RedisTestSupport.awaitCount(FAILOVER, window)).isEqualTo(100);
        for (int i = 1; i <= 50; i++) {
          window.record(i);
        }
        assertThat(window.flush(Duration.ofSeconds(10))).isTrue();
        assertThat(RedisTestSupport.awaitCount(FAILOVER, window)).isEqualTo(150);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    } finally {
      resources.shutdown();
    }
  }

  /**
   * Strict mode on a cluster: WAIT reaches the node serving the written key, so a decision on
   * master 0 is not confirmed while master 0's replica is stopped, while one on master 1 is; once
   * the replica resumes, decisions on master 0 are confirmed again.
   */
  @Test
  void strict_waitsForTheReplicaOfTheWrittenKeysNode() {
    try (LocalRedisCluster cluster = LocalRedisCluster.start(true)) {
      RedisClusterClient client = cluster.newClient();
      client.setOptions(RedisBackend.failFastClusterClientOptions(TIMEOUT));
      try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
        RedisBackend backend =
            RedisBackend.builder(connection)
                .commandTimeout(TIMEOUT)
                .outagePolicy(OutagePolicy.THROW)
                .confirmingReplicas(1)
                .build();
        RateLimiter limiter =
            backend.rateLimiter(
                "strict",
                RateLimitConfig.builder()
                    .limit(10)
                    .timeSource(new ManualTimeSource(1_000_000_000_000L))
                    .build());
        String first =
            onMaster(0, "u", k -> RedisTestKit.rateLimiterKeys("ringtail", "strict", k)[0]);
        String second =
            onMaster(1, "u", k -> RedisTestKit.rateLimiterKeys("ringtail", "strict", k)[0]);
        RedisRollingWindow window =
            backend
                .window(onMaster(2, "w", n -> RedisTestKit.windowKeys("ringtail", n)[0]))
                .build();
        assertThat(limiter.tryAcquire(first).allowed()).isTrue();
        assertThat(limiter.tryAcquire(second).allowed()).isTrue();
        window.record(1);
        assertThat(window.flush(Duration.ofSeconds(5))).isTrue();
        assertThat(backend.unconfirmedWrites()).isZero();

        cluster.replicas().get(0).pause();
        try {
          assertThatThrownBy(() -> limiter.tryAcquire(first))
              .isInstanceOf(RedisUnavailableException.class)
              .hasMessageContaining("replicas confirmed");
          assertThat(backend.unconfirmedWrites()).isEqualTo(1);
          assertThat(limiter.tryAcquire(second).allowed())
              .as("master 1's replica confirms")
              .isTrue();
        } finally {
          cluster.replicas().get(0).resume();
        }
        assertThat(
                RedisTestSupport.awaitDecided(
                    FAILOVER,
                    "a confirmed decision on master 0",
                    () -> limiter.tryAcquire(first).allowed()))
            .isTrue();
        assertThat(RedisTestSupport.awaitCount(FAILOVER, window)).isEqualTo(1);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
