package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The ACL documented in docs/redis.md is enough for every operation, and no broader. */
@ExtendWith(RedisExtension.class)
class AclTest {
  /**
   * The rules of the documented {@code ACL SETUSER ringtail-app ...} command, read from the docs.
   */
  static String documentedAcl() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "redis.md"));
    int section = doc.indexOf("## Redis ACL");
    int open = doc.indexOf("```\n", section) + 4;
    String command = doc.substring(open, doc.indexOf("```", open)).replaceAll("\\s+", " ").trim();
    String prefix = "ACL SETUSER ringtail-app ";
    assertThat(command).startsWith(prefix);
    return command.substring(prefix.length());
  }

  @Test
  void documentedAcl_allowsWindowsDecisionsAndScriptRecovery(RedisProcess server)
      throws IOException {
    RedisClient admin = RedisTestSupport.client();
    RedisClient limited = RedisTestSupport.client();
    try (StatefulRedisConnection<String, String> root = admin.connect(server.uri())) {
      root.sync()
          .dispatch(
              io.lettuce.core.protocol.CommandType.ACL,
              new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
              new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                  .add("SETUSER")
                  .add("ringtail-app")
                  .addKeys(documentedAcl().split(" ")));
      root.sync().scriptFlush();
      root.sync().functionFlush(io.lettuce.core.FlushMode.SYNC);
      RedisURI uri =
          RedisURI.builder(server.uri()).withAuthentication("ringtail-app", "secret").build();
      try (StatefulRedisConnection<String, String> app = limited.connect(uri)) {
        RedisBackend backend =
            RedisBackend.builder(app)
                .commandTimeout(Duration.ofSeconds(5))
                .outagePolicy(OutagePolicy.THROW)
                .build();
        ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
        RedisRollingWindow w = backend.window(RedisTestSupport.uniqueName("acl")).build();
        for (int i = 0; i < 10; i++) {
          w.record(i);
        }
        w.record(-1);
        assertThat(w.snapshot().count()).isEqualTo(10);
        assertThat(w.stats().failedCalls()).isZero();
        assertThat(w.stats().scriptReloads()).isPositive();
        assertThat(backend.serverClock().nanoTime()).isPositive();
        RedisHistogramWindow fleet =
            backend.histogramWindow(RedisTestSupport.uniqueName("acl")).build();
        for (int i = 1; i <= 10; i++) {
          fleet.record(i);
        }
        assertThat(fleet.flush(Duration.ofSeconds(5))).isTrue();
        assertThat(fleet.snapshot().count()).isEqualTo(10);
        RedisKeyedHistogramWindows routes =
            backend.keyedHistogramWindows(RedisTestSupport.uniqueName("acl")).build();
        for (int i = 1; i <= 10; i++) {
          routes.record("route-" + (i % 2), i);
        }
        assertThat(routes.flush(Duration.ofSeconds(5))).isTrue();
        assertThat(routes.snapshot("route-1").count()).isEqualTo(5);
        assertThat(routes.snapshot("route-1").count()).as("read again, cached").isEqualTo(5);
        assertThat(routes.snapshots()).hasSize(2);
        assertThat(routes.stats().failedCalls()).isZero();
        routes.close();
        // a flush merges with its script (SET, HDEL, GET, PEXPIRE) and takes the lease (SET NX)
        String mergedName = RedisTestSupport.uniqueName("acl");
        RedisKeyedHistogramWindows merging =
            backend
                .keyedHistogramWindows(mergedName)
                .timeSource(time)
                .publishInterval(Duration.ofMinutes(1))
                .build();
        for (int i = 1; i <= 2; i++) {
          merging.record("k", i);
          assertThat(merging.flush(Duration.ofSeconds(5))).isTrue();
        }
        FleetKeys keys =
            new FleetKeys("ringtail", mergedName, Duration.ofSeconds(1).toNanos(), 2, 1);
        assertThat(root.sync().hlen(keys.inbox(FleetKeys.group("k")))).isZero();
        assertThat(root.sync().get(keys.lease(FleetKeys.group("k")))).isNotNull();
        assertThat(merging.snapshot("k").count()).isEqualTo(2);
        assertThat(merging.stats().failedCalls()).isZero();
        merging.close();
        String key = RedisTestSupport.uniqueName("k");
        assertThat(
                backend
                    .rateLimiter("acl", RateLimitConfig.builder().limit(1).timeSource(time).build())
                    .tryAcquire(key)
                    .allowed())
            .isTrue();
        assertThat(
                backend
                    .bucketedRateLimiter(
                        "acl", RateLimitConfig.builder().limit(1).timeSource(time).build())
                    .tryAcquire(key)
                    .allowed())
            .isTrue();
        assertThat(
                backend
                    .thresholdDetector(
                        "acl", ThresholdConfig.builder().threshold(1).timeSource(time).build())
                    .record(key, "e")
                    .fired())
            .isTrue();
        assertThat(
                backend
                    .sumCap(
                        "acl", SumCapConfig.builder().cap(BigDecimal.TEN).timeSource(time).build())
                    .tryAdd(key, BigDecimal.ONE)
                    .allowed())
            .isTrue();
        RedisBackend outside =
            RedisBackend.builder(app).keyPrefix("other").outagePolicy(OutagePolicy.THROW).build();
        RedisRollingWindow denied = outside.window("x").build();
        denied.record(1);
        denied.flush(Duration.ofSeconds(1));
        assertThat(denied.stats().stored()).as("keys outside ~ringtail:* are refused").isZero();
      }
    } finally {
      RedisTestSupport.shutdown(admin);
      RedisTestSupport.shutdown(limited);
    }
  }
}
