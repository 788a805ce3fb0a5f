package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Strict mode ({@link RedisBackend.Builder#confirmingReplicas}) against the failover that costs
 * users: the replica is cut off and stopped while decisions and records go on, then the primary is
 * killed and the replica, resumed, is promoted without what it missed. By default the admissions
 * and samples acknowledged meanwhile are lost (a limiter admits beyond its limit); in strict mode
 * they were never acknowledged (denied, kept for replay), so the limit holds and every sample
 * arrives once. The killed server then comes back as a replica of the promoted one, so that strict
 * writes can be confirmed again.
 */
class StrictModeTest {
  private static final Duration TIMEOUT = Duration.ofMillis(150);
  private static final Duration FAILOVER = Duration.ofSeconds(30);
  private static final int LIMIT = 10;
  private LocalSentinelGroup group;
  private ClientResources resources;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;

  @BeforeEach
  void start() {
    group = LocalSentinelGroup.start();
    resources = LocalSentinelGroup.fastReconnect();
    client = RedisClient.create(resources);
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    connection = client.connect(group.uri());
  }

  @AfterEach
  void stop() {
    connection.close();
    RedisTestSupport.shutdown(client);
    resources.shutdown();
    group.close();
  }

  /** What one run saw: admissions in all, and the window's count on the promoted replica. */
  private record Outcome(int admitted, long counted, long unconfirmed) {}

  private Outcome failoverWithTheReplicaBehind(int confirmingReplicas) {
    // docs:strict-mode:start
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(TIMEOUT)
            .outagePolicy(OutagePolicy.THROW)
            .confirmingReplicas(confirmingReplicas) // 1: every write waits for one replica
            .build();
    // docs:strict-mode:end
    RateLimiter limiter =
        backend.rateLimiter(
            "strict",
            RateLimitConfig.builder()
                .limit(LIMIT)
                .timeSource(new ManualTimeSource(1_000_000_000_000L))
                .build());
    RedisRollingWindow window = backend.window("strict").length(Duration.ofMinutes(5)).build();
    int admitted = 0;
    for (int i = 0; i < 6; i++) {
      admitted += limiter.tryAcquire("k").allowed() ? 1 : 0;
      window.record(i);
    }
    assertThat(window.flush(Duration.ofSeconds(5))).isTrue();
    group.awaitReplicated(Duration.ofSeconds(10));

    RedisProcess old = group.primary();
    RedisProcess replica = group.servers().get(1);
    group.detachAndPause(replica);
    try {
      for (int i = 0; i < 2; i++) {
        try {
          admitted += limiter.tryAcquire("k").allowed() ? 1 : 0;
        } catch (RedisUnavailableException unconfirmed) {
          // strict mode: not confirmed, so not admitted
        }
        window.record(100 + i);
        window.record(200 + i);
      }
      window.flush(Duration.ofMillis(150));
      old.kill();
    } finally {
      replica.resume();
    }
    RedisProcess promoted = group.awaitFailover(old, FAILOVER);
    old.restart();
    try (RedisClient direct = RedisClient.create();
        StatefulRedisConnection<String, String> c = direct.connect(old.uri())) {
      c.sync().replicaof("127.0.0.1", promoted.port());
    }
    group.awaitReplicated(FAILOVER);
    RedisTestSupport.await(
        FAILOVER,
        "the window's samples delivered to the promoted replica",
        () -> window.flush(Duration.ofMillis(500)));
    for (int i = 0; i < 2 * LIMIT; i++) {
      boolean allowed =
          RedisTestSupport.awaitDecided(
              FAILOVER,
              "a decision answered on the promoted replica",
              () -> limiter.tryAcquire("k").allowed());
      admitted += allowed ? 1 : 0;
    }
    return new Outcome(
        admitted, RedisTestSupport.awaitCount(FAILOVER, window), backend.unconfirmedWrites());
  }

  @Test
  void byDefault_whatTheReplicaMissedIsLost() {
    Outcome o = failoverWithTheReplicaBehind(0);
    assertThat(o.admitted()).as("admitted beyond the limit").isEqualTo(LIMIT + 2);
    assertThat(o.counted()).as("samples acknowledged but lost").isEqualTo(6);
    assertThat(o.unconfirmed()).isZero();
  }

  @Test
  void strict_theLimitHoldsAndEverySampleArrivesOnce() {
    Outcome o = failoverWithTheReplicaBehind(1);
    assertThat(o.admitted()).isEqualTo(LIMIT);
    assertThat(o.counted()).isEqualTo(10);
    assertThat(o.unconfirmed()).as("the writes sent while the replica was stopped").isPositive();
  }
}
