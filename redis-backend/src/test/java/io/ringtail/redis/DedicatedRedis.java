package io.ringtail.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;

/**
 * A redis-server of one test's own (to stop, kill or restart at will) with a fail-fast client and
 * one connection to it; closing it closes all three.
 */
final class DedicatedRedis implements AutoCloseable {
  final RedisProcess server;
  final RedisClient client;
  final StatefulRedisConnection<String, String> connection;

  private DedicatedRedis(Duration timeout) {
    server = RedisProcess.start();
    client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(timeout));
    connection = client.connect(server.uri());
  }

  /** Starts a server and connects to it, every command bounded by {@code timeout}. */
  static DedicatedRedis start(Duration timeout) {
    return new DedicatedRedis(timeout);
  }

  @Override
  public void close() {
    connection.close();
    RedisTestSupport.shutdown(client);
    server.close();
  }
}
