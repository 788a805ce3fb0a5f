package io.ringtail.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Tests that each start a redis-server of their own (to stop, kill or restart at will), with a
 * fail-fast client and one connection to it, closed after the test.
 */
abstract class DedicatedRedisTest {
  private final Duration timeout;
  RedisProcess server;
  RedisClient client;
  StatefulRedisConnection<String, String> connection;

  /** Every command of the client bounded by {@code timeout}. */
  DedicatedRedisTest(Duration timeout) {
    this.timeout = timeout;
  }

  @BeforeEach
  final void startDedicatedServer() {
    server = RedisProcess.start();
    client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(timeout));
    connection = client.connect(server.uri());
  }

  @AfterEach
  final void stopDedicatedServer() {
    connection.close();
    RedisTestSupport.shutdown(client);
    server.close();
  }
}
