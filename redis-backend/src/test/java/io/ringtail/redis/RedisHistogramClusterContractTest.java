package io.ringtail.redis;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.redis.testkit.LocalRedisCluster;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.testkit.RollingWindowContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Core's window contract on the real local 3-master cluster, at the windows' 2-digit precision, for
 * both faces of the fleet histogram engine: a single window, and one key of keyed windows (whose
 * neighbouring key, recorded with every sample, falls in another group).
 */
@ExtendWith(RedisExtension.class)
class RedisHistogramClusterContractTest {
  private static RedisClusterClient client;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(LocalRedisCluster cluster) {
    client = cluster.newClient();
    client.setOptions(RedisBackend.failFastClusterClientOptions(Duration.ofSeconds(5)));
    StatefulRedisClusterConnection<String, String> connection = client.connect();
    backend = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  static void close() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private static WindowConfig config(Duration length, int buckets) {
    return WindowConfig.builder().length(length).buckets(buckets).significantDigits(2).build();
  }

  /** The single window face. */
  @Nested
  class Single extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return backend
          .histogramWindow(RedisTestSupport.uniqueName("cluster-contract"))
          .config(config(length, buckets))
          .timeSource(time)
          .build();
    }
  }

  /** One key of keyed windows. */
  @Nested
  class PerKey extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      RedisKeyedHistogramWindows windows =
          backend
              .keyedHistogramWindows(RedisTestSupport.uniqueName("cluster-keyed-contract"))
              .config(config(length, buckets))
              .timeSource(time)
              .build();
      String key = "GET /checkout";
      String neighbour = "GET /cart";
      org.assertj.core.api.Assertions.assertThat(FleetKeys.group(neighbour))
          .isNotEqualTo(FleetKeys.group(key));
      return new NeighbouredWindow(windows.window(key), windows.window(neighbour));
    }
  }
}
