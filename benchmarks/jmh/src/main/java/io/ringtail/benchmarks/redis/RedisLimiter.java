package io.ringtail.benchmarks.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;

/**
 * One distributed rate limiter in the limiter comparison report: a fresh client of its library on
 * the report's {@code redis-server}, limiting every key to {@code limit} requests per {@code
 * window}. Adding a contender is one small class implementing this and one line in {@link
 * #CONTENDERS}.
 *
 * <p>{@link #tryAcquire} is called concurrently from the report's client threads, so an
 * implementation must be thread-safe; each is used by one report phase and then closed.
 */
public interface RedisLimiter extends AutoCloseable {
  /** Every contender the report runs, in table order. */
  List<Factory> CONTENDERS =
      List.of(
          (server, limit, window) -> new RingtailRedisLimiter(server, limit, window, false),
          (server, limit, window) -> new RingtailRedisLimiter(server, limit, window, true),
          Bucket4jRedisLimiter::new,
          RedissonRedisLimiter::new);

  /** Opens a contender's client on {@code server}. */
  @FunctionalInterface
  interface Factory {
    RedisLimiter open(RedisURI server, int limit, Duration window);
  }

  /** The row label: library and class. */
  String label();

  /** How it decides, in a few words (the algorithm and the Redis round trips per decision). */
  String algorithm();

  /** One decision for {@code key}: true when the request is admitted. */
  boolean tryAcquire(String key);

  /** Closes the contender's client (the report's server keeps running). */
  @Override
  void close();
}
