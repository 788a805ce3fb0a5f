package io.ringtail.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/** Small helpers for tests against real servers. */
final class RedisTestSupport {
  private RedisTestSupport() {}

  static RedisClient client() {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(2)));
    return client;
  }

  static StatefulRedisConnection<String, String> connect(RedisClient client, RedisProcess server) {
    return client.connect(server.uri());
  }

  static String uniqueName(String base) {
    return base + ":" + UUID.randomUUID();
  }

  /** Polls {@code condition} every 20 ms until true; fails after {@code timeout}. */
  static void await(Duration timeout, String what, BooleanSupplier condition) {
    await(timeout, what, condition, () -> "");
  }

  /** {@link #await} whose failure message ends with {@code state}. */
  static void await(
      Duration timeout,
      String what,
      BooleanSupplier condition,
      java.util.function.Supplier<String> state) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after " + timeout + " waiting for " + what + " " + state.get());
      }
      RedisProcess.pollPause();
    }
  }

  /**
   * Asks {@code decision} every 20 ms until Redis answers it instead of throwing {@link
   * RedisUnavailableException} (after a failover, say); returns the answer; fails after {@code
   * timeout}.
   */
  static boolean awaitDecided(Duration timeout, String what, BooleanSupplier decision) {
    boolean[] answer = new boolean[1];
    await(
        timeout,
        what,
        () -> {
          try {
            answer[0] = decision.getAsBoolean();
            return true;
          } catch (RedisUnavailableException notYet) {
            return false;
          }
        });
    return answer[0];
  }

  /** The window's count once Redis answers a snapshot (every 20 ms, up to {@code timeout}). */
  static long awaitCount(Duration timeout, io.ringtail.RollingWindow window) {
    long[] count = new long[1];
    await(
        timeout,
        "a snapshot answered",
        () -> {
          try {
            count[0] = window.snapshot().count();
            return true;
          } catch (RedisUnavailableException notYet) {
            return false;
          }
        });
    return count[0];
  }

  static void shutdown(RedisClient client) {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
