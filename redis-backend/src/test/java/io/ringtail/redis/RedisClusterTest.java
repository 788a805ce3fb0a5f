package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.testkit.BackendOptions;
import io.ringtail.redis.testkit.LocalRedisCluster;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Windows and decisions on a real local 3-master Redis Cluster: names are chosen so that windows
 * land on every master (and names with braces among them); every multi-key script runs without
 * CROSSSLOT, and scripts and the decisions' function library load themselves on each node.
 */
@ExtendWith(RedisExtension.class)
@BackendOptions(cluster = true, outagePolicy = OutagePolicy.THROW)
class RedisClusterTest {
  private static LocalRedisCluster cluster;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(LocalRedisCluster redisCluster, RedisBackend onCluster) {
    cluster = redisCluster;
    backend = onCluster;
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

  /** For each master, a window name (with braces in it) whose keys it serves. */
  private static List<String> namesOnEveryMaster(String base) {
    String[] found = new String[3];
    for (int i = 0; found[0] == null || found[1] == null || found[2] == null; i++) {
      String name = base + "{user}" + i;
      int m = master(WindowKeys.window("ringtail", name)[0]);
      if (found[m] == null) {
        found[m] = name;
      }
    }
    return List.of(found);
  }

  @Test
  void windows_onEveryMaster_areExact_andKeysLiveOnThatMaster() {
    RedisClient direct = RedisClient.create();
    try {
      for (RedisProcess node : cluster.nodes()) {
        try (StatefulRedisConnection<String, String> c = direct.connect(node.uri())) {
          c.sync().scriptFlush();
        }
      }
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
      List<String> names = namesOnEveryMaster("cluster-window-" + System.nanoTime());
      List<RedisRollingWindow> windows = new ArrayList<>();
      for (String name : names) {
        windows.add(backend.window(name).timeSource(time).build());
      }
      for (int i = 1; i <= 1000; i++) {
        for (int m = 0; m < 3; m++) {
          windows.get(m).record(i * (m + 1));
        }
      }
      for (int m = 0; m < 3; m++) {
        WindowSnapshot s = windows.get(m).snapshot(95);
        assertThat(s.count()).isEqualTo(1000);
        assertThat(s.sum()).isEqualTo(500_500L * (m + 1));
        assertThat(s.valueAtPercentile(95)).isEqualTo(950.0 * (m + 1));
        assertThat(windows.get(m).stats().failedCalls()).isZero();
        String[] keys = WindowKeys.window("ringtail", names.get(m));
        try (StatefulRedisConnection<String, String> node =
            direct.connect(cluster.nodes().get(m).uri())) {
          assertThat(node.sync().exists(keys[0], keys[1], keys[2]))
              .as("keys of %s on master %d", names.get(m), m)
              .isEqualTo(3);
        }
      }
      assertThat(windows.get(0).stats().scriptReloads())
          .as("each node loaded the scripts after NOSCRIPT")
          .isGreaterThanOrEqualTo(3);
    } finally {
      direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void serverClock_worksWithoutKeysOnACluster() {
    long wall = System.currentTimeMillis() * 1_000_000L;
    assertThat(Math.abs(backend.serverClock().nanoTime() - wall))
        .isLessThan(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void decisions_onEveryMaster_afterFunctionFlushOnEveryNode() {
    RedisClient direct = RedisClient.create();
    try {
      for (RedisProcess node : cluster.nodes()) {
        try (StatefulRedisConnection<String, String> c = direct.connect(node.uri())) {
          c.sync().functionFlush(FlushMode.SYNC);
        }
      }
    } finally {
      direct.shutdown();
    }
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    RateLimiter limiter =
        backend.rateLimiter(
            "cluster-rl", RateLimitConfig.builder().limit(3).timeSource(time).build());
    ThresholdDetector detector =
        backend.thresholdDetector(
            "cluster-th", ThresholdConfig.builder().threshold(2).timeSource(time).build());
    SumCap cap =
        backend.sumCap(
            "cluster-sum",
            SumCapConfig.builder().cap(new BigDecimal("10.00")).timeSource(time).build());
    boolean[] covered = new boolean[3];
    String run = Long.toString(System.nanoTime());
    for (int i = 0; !(covered[0] && covered[1] && covered[2]); i++) {
      String user = "{u}" + run + "-" + i;
      covered[master(DecisionKeys.of("ringtail", "cluster-rl", user, "rl")[0])] = true;
      for (int n = 0; n < 3; n++) {
        assertThat(limiter.tryAcquire(user).allowed()).isTrue();
      }
      assertThat(limiter.tryAcquire(user).allowed()).isFalse();
      assertThat(detector.record(user, "a").fired()).isFalse();
      assertThat(detector.record(user, "b").fired()).isTrue();
      assertThat(cap.tryAdd(user, new BigDecimal("3.33")).allowed()).isTrue();
      assertThat(cap.tryAdd(user, new BigDecimal("6.67")).total()).isEqualByComparingTo("10.00");
    }
  }
}
