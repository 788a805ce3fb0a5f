package io.ringtail.redis;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.testkit.RollingWindowContract;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** Core's window contract, run against a real redis-server with the test's time source. */
@ExtendWith(RedisExtension.class)
class RedisRollingWindowContractTest extends RollingWindowContract {
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisBackend redisBackend) {
    backend = redisBackend;
  }

  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    return backend
        .window(RedisTestSupport.uniqueName("contract"))
        .length(length)
        .timeSource(time)
        .percentiles(0, 1, 25, 50, 90, 95, 99, 99.9, 100)
        .build();
  }

  @Override
  protected double percentileTolerance() {
    return 0;
  }

  @Override
  protected int concurrentRecordsPerThread() {
    return 10_000;
  }
}
