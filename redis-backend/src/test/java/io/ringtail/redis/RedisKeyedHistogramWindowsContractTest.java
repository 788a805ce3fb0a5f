package io.ringtail.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testkit.RollingWindowContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Core's window contract, run per key of keyed histogram windows against a real redis-server, at
 * the window's 2-digit precision. Each window is one key of windows that also record, for every
 * sample, into a neighbouring key: the key under test must hold exactly its own samples.
 */
@ExtendWith(RedisExtension.class)
class RedisKeyedHistogramWindowsContractTest extends RollingWindowContract {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisProcess redis) {
    client = RedisTestSupport.client();
    connection = RedisTestSupport.connect(client, redis);
    backend = RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  static void close() {
    connection.close();
    RedisTestSupport.shutdown(client);
  }

  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    RedisKeyedHistogramWindows windows =
        backend
            .keyedHistogramWindows(RedisTestSupport.uniqueName("keyed-contract"))
            .config(
                WindowConfig.builder().length(length).buckets(buckets).significantDigits(2).build())
            .timeSource(time)
            .build();
    RollingWindow key = windows.window("GET /checkout");
    RollingWindow neighbour = windows.window("GET /checkout/");
    return new NeighbouredWindow(key, neighbour);
  }
}
