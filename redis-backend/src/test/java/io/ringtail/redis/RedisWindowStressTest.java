package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.WindowSnapshot;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Many threads recording (with replayed ids) while others take snapshots, through the batching
 * path: nothing is lost or counted twice, snapshots never go backwards, and the per-process
 * accounting adds up.
 */
@ExtendWith(RedisExtension.class)
class RedisWindowStressTest {

  @Test
  void concurrentRecordsReplaysAndSnapshots_loseNothing(RedisProcess server) throws Exception {
    RedisClient client = RedisTestSupport.client();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (StatefulRedisConnection<String, String> c = RedisTestSupport.connect(client, server)) {
      RedisBackend backend = RedisBackend.builder(c).commandTimeout(Duration.ofSeconds(5)).build();
      RedisRollingWindow w =
          backend
              .window(RedisTestSupport.uniqueName("stress"))
              .length(Duration.ofMinutes(5))
              .maxInFlight(512)
              .build();
      int writers = 6;
      int perWriter = 5_000;
      AtomicBoolean done = new AtomicBoolean();
      AtomicLong snapshots = new AtomicLong();
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < writers; t++) {
        int writer = t;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perWriter; i++) {
                    w.record("w" + writer + "-" + i, writer + 1);
                    if (i % 100 == 0) {
                      w.record("w" + writer + "-" + i, writer + 1);
                    }
                  }
                }));
      }
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(
            pool.submit(
                () -> {
                  long last = 0;
                  while (!done.get()) {
                    WindowSnapshot s = w.snapshot(50, 95);
                    assertThat(s.count()).isGreaterThanOrEqualTo(last);
                    last = s.count();
                    snapshots.incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      done.set(true);
      for (Future<?> f : readers) {
        f.get();
      }
      assertThat(w.flush(Duration.ofSeconds(30))).isTrue();
      WindowSnapshot s = w.snapshot();
      assertThat(s.count()).isEqualTo((long) writers * perWriter);
      assertThat(s.sum()).isEqualTo((long) perWriter * (1 + 2 + 3 + 4 + 5 + 6));
      RedisWindowStats stats = w.stats();
      assertThat(stats.recorded()).isEqualTo(stats.stored() + stats.duplicates());
      assertThat(stats.duplicates()).isEqualTo(writers * (perWriter / 100));
      assertThat(snapshots.get()).isPositive();
    } finally {
      pool.shutdownNow();
      RedisTestSupport.shutdown(client);
    }
  }
}
