package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A backend on a Sentinel-managed primary (a Sentinel URI, as the user's Lettuce client takes it)
 * follows a failover: the primary is killed (SIGKILL) after its replica caught up, the sentinels
 * promote the replica, and decisions and windows carry on there with the state they had.
 *
 * <p>Strict mode ({@link RedisBackend.Builder#confirmingReplicas}) against the failover that costs
 * users: the replica is cut off and stopped while decisions and records go on, then the primary is
 * killed and the replica, resumed, is promoted without what it missed. By default the admissions
 * and samples acknowledged meanwhile are lost (a limiter admits beyond its limit); in strict mode
 * they were never acknowledged (denied, kept for replay), so the limit holds and every sample
 * arrives once. The killed server then comes back as a replica of the promoted one, so that strict
 * writes can be confirmed again.
 */
class SentinelFailoverTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);
  private static final Duration FAILOVER = Duration.ofSeconds(30);

  /**
   * The replica-behind runs' timeout: long enough that WAIT is answered in time on a loaded machine
   * before the replica is stopped (at 150 ms one confirmed admission was once answered as
   * unconfirmed, under-admitting), short enough that the writes sent while it is stopped fail
   * within seconds.
   */
  private static final Duration STRICT_TIMEOUT = Duration.ofSeconds(1);

  private static final int LIMIT = 10;
  private LocalSentinelGroup group;
  private ClientResources resources;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;

  @BeforeEach
  void start() {
    group = LocalSentinelGroup.start();
    RedisURI sentinelUri = group.uri();
    // docs:failover-client:start
    ClientResources resources =
        ClientResources.builder() // try the new primary within 100 ms of the switch
            .reconnectDelay(
                Delay.exponential(
                    Duration.ofMillis(10), Duration.ofMillis(100), 2, TimeUnit.MILLISECONDS))
            .build();
    RedisClient client = RedisClient.create(resources);
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofMillis(500)));
    // redis-sentinel://host:26379,host:26380,host:26381#mymaster: asks the sentinels on connect
    StatefulRedisConnection<String, String> connection = client.connect(sentinelUri);
    // docs:failover-client:end
    this.resources = resources;
    this.client = client;
    this.connection = connection;
  }

  @AfterEach
  void stop() {
    connection.close();
    RedisTestSupport.shutdown(client);
    resources.shutdown();
    group.close();
  }

  @Test
  void killedPrimary_decisionsAndWindowsCarryOnOnThePromotedReplica() {
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(TIMEOUT)
            .outagePolicy(OutagePolicy.THROW)
            .build();
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    RateLimiter limiter =
        backend.rateLimiter(
            "sentinel", RateLimitConfig.builder().limit(10).timeSource(time).build());
    SumCap cap =
        backend.sumCap(
            "sentinel",
            SumCapConfig.builder().cap(BigDecimal.TEN).scale(0).timeSource(time).build());
    RedisRollingWindow window = backend.window("sentinel").length(Duration.ofMinutes(5)).build();
    for (int i = 0; i < 6; i++) {
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }
    assertThat(cap.tryAdd("k", new BigDecimal("7")).allowed()).isTrue();
    for (int i = 1; i <= 100; i++) {
      window.record(i);
    }
    assertThat(window.flush(Duration.ofSeconds(5))).isTrue();
    group.awaitReplicated(Duration.ofSeconds(10));

    RedisProcess old = group.primary();
    old.kill();
    RedisProcess promoted = group.awaitFailover(old, FAILOVER);
    assertThat(
            RedisTestSupport.awaitDecided(
                FAILOVER,
                "a decision on the promoted primary",
                () -> limiter.tryAcquire("k").allowed()))
        .isTrue();

    int more = 0;
    while (RedisTestSupport.awaitDecided(
        FAILOVER, "a decision answered", () -> limiter.tryAcquire("k").allowed())) {
      more++;
    }
    assertThat(more).as("admitted after the failover besides the first").isEqualTo(3);
    assertThat(cap.tryAdd("k", new BigDecimal("3")).allowed()).isTrue();
    assertThat(cap.tryAdd("k", BigDecimal.ONE).allowed()).isFalse();
    assertThat(RedisTestSupport.awaitCount(FAILOVER, window)).isEqualTo(100);
    for (int i = 1; i <= 50; i++) {
      window.record(i);
    }
    assertThat(window.flush(Duration.ofSeconds(10))).isTrue();
    assertThat(RedisTestSupport.awaitCount(FAILOVER, window)).isEqualTo(150);
    try (RedisClient direct = RedisClient.create();
        StatefulRedisConnection<String, String> c = direct.connect(promoted.uri())) {
      assertThat(c.sync().zcard(RedisTestKit.windowKeys("ringtail", "sentinel")[0]))
          .as("the window lives on the promoted replica")
          .isEqualTo(150);
    }
  }

  /**
   * What one run saw: admissions in all, the window's and the keyed fleet window's counts on the
   * promoted replica.
   */
  private record Outcome(int admitted, long counted, long keyedCounted, long unconfirmed) {}

  private Outcome failoverWithTheReplicaBehind(int confirmingReplicas) {
    Duration timeout = STRICT_TIMEOUT;
    // docs:strict-mode:start
    RedisBackend backend =
        RedisBackend.builder(connection)
            .commandTimeout(timeout)
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
    RedisKeyedHistogramWindows routes =
        backend.keyedHistogramWindows("strict").publishInterval(Duration.ofMinutes(1)).build();
    int admitted = 0;
    for (int i = 0; i < 6; i++) {
      admitted += limiter.tryAcquire("k").allowed() ? 1 : 0;
      window.record(i);
      routes.record("GET /", 1_000 + i);
    }
    assertThat(window.flush(Duration.ofSeconds(5))).isTrue();
    assertThat(routes.flush(Duration.ofSeconds(5))).isTrue();
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
        routes.record("GET /", 2_000 + i);
        routes.record("GET /", 3_000 + i);
      }
      window.flush(Duration.ofMillis(150));
      routes.flush(Duration.ofMillis(150));
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
    RedisTestSupport.await(
        FAILOVER,
        "the keyed window's deltas delivered to the promoted replica",
        () -> routes.flush(Duration.ofMillis(500)));
    for (int i = 0; i < 2 * LIMIT; i++) {
      boolean allowed =
          RedisTestSupport.awaitDecided(
              FAILOVER,
              "a decision answered on the promoted replica",
              () -> limiter.tryAcquire("k").allowed());
      admitted += allowed ? 1 : 0;
    }
    long[] keyedCounted = new long[1];
    RedisTestSupport.await(
        FAILOVER,
        "a snapshot of the keyed window",
        () -> {
          try {
            keyedCounted[0] = routes.snapshot("GET /").count();
            return true;
          } catch (RedisUnavailableException notYet) {
            return false;
          }
        });
    routes.close();
    return new Outcome(
        admitted,
        RedisTestSupport.awaitCount(FAILOVER, window),
        keyedCounted[0],
        backend.unconfirmedWrites());
  }

  @Test
  void byDefault_whatTheReplicaMissedIsLost() {
    Outcome o = failoverWithTheReplicaBehind(0);
    assertThat(o.admitted()).as("admitted beyond the limit").isEqualTo(LIMIT + 2);
    assertThat(o.counted()).as("samples acknowledged but lost").isEqualTo(6);
    assertThat(o.keyedCounted()).as("keyed deltas acknowledged but lost").isEqualTo(6);
    assertThat(o.unconfirmed()).isZero();
  }

  @Test
  void strict_theLimitHoldsAndEverySampleArrivesOnce() {
    Outcome o = failoverWithTheReplicaBehind(1);
    assertThat(o.admitted()).isEqualTo(LIMIT);
    assertThat(o.counted()).isEqualTo(10);
    assertThat(o.keyedCounted()).as("every keyed delta arrives once").isEqualTo(10);
    assertThat(o.unconfirmed()).as("the writes sent while the replica was stopped").isPositive();
  }
}
