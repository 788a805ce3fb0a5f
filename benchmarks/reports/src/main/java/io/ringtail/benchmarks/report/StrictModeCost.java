package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.OutagePolicy;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Strict mode's cost per decision on a healthy Sentinel group this class starts: decisions/s and
 * latency of a sliding-log rate limiter on 1,000 keys, from some threads on one connection, in the
 * default mode or confirming to replicas. Not thread-safe; one measurement at a time.
 */
final class StrictModeCost {
  private StrictModeCost() {}

  /** Decisions/s, p50 and p99 µs of sliding-log decisions from {@code threads} threads. */
  static double[] cost(int confirmingReplicas, int threads) throws InterruptedException {
    ClientResources resources = LocalSentinelGroup.fastReconnect();
    try (LocalSentinelGroup group = LocalSentinelGroup.start()) {
      RedisClient client = RedisClient.create(resources);
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
      try (StatefulRedisConnection<String, String> connection = client.connect(group.uri())) {
        RedisBackend backend =
            RedisBackend.builder(connection)
                .commandTimeout(Duration.ofSeconds(2))
                .outagePolicy(OutagePolicy.THROW)
                .confirmingReplicas(confirmingReplicas)
                .build();
        RateLimiter limiter =
            backend.rateLimiter(
                "cost", RateLimitConfig.builder().limit(100).timeSource(FailoverRun.EPOCH).build());
        Histogram latency = new Histogram(3);
        AtomicLong decisions = new AtomicLong();
        for (long phase : new long[] {1_000, 3_000}) {
          boolean measured = phase == 3_000;
          AtomicBoolean stop = new AtomicBoolean();
          List<Thread> workers = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            int offset = t * 97;
            Thread w =
                new Thread(
                    () -> {
                      Histogram mine = new Histogram(3);
                      long n = 0;
                      for (int i = offset; !stop.get(); i++) {
                        long start = System.nanoTime();
                        limiter.tryAcquire("key-" + (i % 1_000));
                        mine.recordValue((System.nanoTime() - start) / 1_000);
                        n++;
                      }
                      if (measured) {
                        synchronized (latency) {
                          latency.add(mine);
                        }
                        decisions.addAndGet(n);
                      }
                    });
            w.start();
            workers.add(w);
          }
          Thread.sleep(phase);
          stop.set(true);
          for (Thread w : workers) {
            w.join();
          }
        }
        return new double[] {
          decisions.get() / 3.0, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99)
        };
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    } finally {
      resources.shutdown();
    }
  }
}
