package io.ringtail.benchmarks.redis;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Bucket4j 8 on Lettuce ({@code Bucket4jLettuce.casBasedBuilder}): a token bucket of {@code limit}
 * tokens refilled greedily at {@code limit} per {@code window}, its state read by the client and
 * written back by compare-and-swap, retried on conflict. Buckets expire once full again plus 10 s.
 * One Lettuce connection shared by every thread. Thread-safe (the library's own guarantee).
 */
final class Bucket4jRedisLimiter implements RedisLimiter {
  private final RedisClient client;
  private final StatefulRedisConnection<String, byte[]> connection;
  private final ProxyManager<String> buckets;
  private final Supplier<BucketConfiguration> configuration;

  Bucket4jRedisLimiter(RedisURI server, int limit, Duration window) {
    client = RedisClient.create();
    connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE), server);
    buckets =
        Bucket4jLettuce.casBasedBuilder(connection)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                    Duration.ofSeconds(10)))
            .build();
    BucketConfiguration config =
        BucketConfiguration.builder()
            .addLimit(Bandwidth.builder().capacity(limit).refillGreedy(limit, window).build())
            .build();
    configuration = () -> config;
  }

  @Override
  public String label() {
    return "Bucket4j 8.15 on Lettuce (`casBasedBuilder`)";
  }

  @Override
  public String algorithm() {
    return "token bucket, client-side compare-and-swap";
  }

  @Override
  public boolean tryAcquire(String key) {
    return buckets.builder().build(key, configuration).tryConsume(1);
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
