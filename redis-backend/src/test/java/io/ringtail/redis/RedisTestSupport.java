package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

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
      Duration timeout, String what, BooleanSupplier condition, Supplier<String> state) {
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

  /**
   * Checks that a fleet window's ticks keep draining its recorders into memory while a round waits
   * for a stopped server (the window's command timeout must outlast the test), and that once the
   * server is back every sample is published once. {@code record} records the i-th sample.
   */
  static void assertTicksDrainWhileARoundWaits(
      RedisProcess server,
      IntConsumer record,
      Supplier<CompletableFuture<Void>> lastRound,
      Supplier<RedisHistogramWindowStats> stats,
      BooleanSupplier flush) {
    record.accept(0);
    await(
        Duration.ofSeconds(20),
        "the first sample published",
        () -> stats.get().published() == 1,
        () -> stats.get().toString());
    server.pause();
    try {
      record.accept(1);
      await(
          Duration.ofSeconds(20),
          "a round waiting for the stopped server",
          () -> !lastRound.get().isDone() && stats.get().pendingSamples() > 0,
          () -> stats.get().toString());
      CompletableFuture<Void> stuck = lastRound.get();
      for (int i = 2; i < 1_002; i++) {
        record.accept(i);
      }
      await(
          Duration.ofSeconds(20),
          "every sample drained while the round waits",
          () -> stats.get().pendingSamples() + stats.get().published() == 1_002,
          () -> stats.get().toString());
      assertThat(lastRound.get()).as("still the stuck round").isSameAs(stuck);
      assertThat(stuck).isNotDone();
    } finally {
      server.resume();
    }
    await(Duration.ofSeconds(30), "pending deltas published", flush, () -> stats.get().toString());
    assertThat(stats.get().published()).isEqualTo(1_002);
    assertThat(stats.get().dropped()).isZero();
  }
}
