package io.ringtail.redis;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Tests of how much server time one call takes on a large state: a redis-server of their own, a
 * backend that throws on an outage (10 s timeout, enough to build large states by calls), a binary
 * connection to write states directly, and the server's SLOWLOG at 10 ms.
 */
abstract class SlowlogRedisTest extends DedicatedRedisTest {
  StatefulRedisConnection<byte[], byte[]> binary;
  RedisBackend backend;

  SlowlogRedisTest() {
    super(Duration.ofSeconds(10));
  }

  @BeforeEach
  final void openBinaryConnectionAndBackend() {
    binary = client.connect(ByteArrayCodec.INSTANCE, server.uri());
    backend =
        RedisBackend.builder(connection)
            .commandTimeout(Duration.ofSeconds(10))
            .outagePolicy(OutagePolicy.THROW)
            .build();
  }

  @AfterEach
  final void closeBinaryConnection() {
    binary.close();
  }

  /** Logs every call over 10 ms of server time from now on. */
  void resetSlowlog() {
    connection.sync().configSet("slowlog-log-slower-than", "10000");
    connection.sync().slowlogReset();
  }

  /** The calls logged since {@link #resetSlowlog()}. */
  List<Object> slowCalls() {
    return connection.sync().slowlogGet(128);
  }
}
