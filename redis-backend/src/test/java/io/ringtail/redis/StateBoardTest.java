package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link StateBoard} on a real redis-server: what one process posts, another reads. */
class StateBoardTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);
  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();
  private StatefulRedisConnection<String, String> admin;

  @BeforeEach
  void start() {
    server = RedisProcess.start();
    RedisClient client = RedisClient.create();
    clients.add(client);
    admin = client.connect(server.uri());
  }

  @AfterEach
  void stop() {
    server.resume();
    clients.forEach(RedisTestSupport::shutdown);
    server.close();
  }

  private RedisBackend backend() {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    return RedisBackend.builder(client.connect(server.uri())).commandTimeout(TIMEOUT).build();
  }

  @Test
  void post_isReadByAnotherProcess_andOverwritesByName() {
    StateBoard mine = backend().stateBoard("alerts", Duration.ofMinutes(10));
    StateBoard theirs = backend().stateBoard("alerts", Duration.ofMinutes(10));
    assertThat(theirs.read()).isEmpty();
    Map<String, String> states = new LinkedHashMap<>();
    states.put("GET /a p95", "1.5 1.0 0.2");
    states.put("GET /b p95", "2.5 2.0 0.9");
    mine.post(states);
    assertThat(theirs.read()).isEqualTo(states);
    theirs.post(Map.of("GET /a p95", "9 9 9"));
    assertThat(mine.read())
        .containsEntry("GET /a p95", "9 9 9")
        .containsEntry("GET /b p95", "2.5 2.0 0.9");
    assertThat(backend().stateBoard("other", Duration.ofMinutes(10)).read()).isEmpty();
  }

  @Test
  void post_restartsTheBoardsTimeToLive() {
    StateBoard board = backend().stateBoard("ttl", Duration.ofSeconds(30));
    board.post(Map.of("k", "v"));
    String key = "ringtail:board:{ttl}";
    long ttl = admin.sync().pttl(key);
    assertThat(ttl).isBetween(1L, 30_000L);
    admin.sync().pexpire(key, 5);
    board.post(Map.of("k", "w"));
    assertThat(admin.sync().pttl(key)).isGreaterThan(5_000L);
    board.post(Map.of());
    assertThat(admin.sync().hget(key, "k")).isEqualTo("w");
  }

  @Test
  void badInput_isRefusedBeforeRedis_namingWhatIsWrong() {
    RedisBackend backend = backend();
    assertThatThrownBy(() -> backend.stateBoard("", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> backend.stateBoard("b", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl");
    StateBoard board = backend.stateBoard("b", Duration.ofSeconds(1));
    assertThatThrownBy(() -> board.post(Map.of("", "v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("entry name");
    assertThatThrownBy(() -> board.post(Map.of("k", "x".repeat(4097))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("state of k");
    assertThat(admin.sync().exists("ringtail:board:{b}")).isZero();
  }

  @Test
  void aStoppedRedis_failsPostAndRead_withinTheTimeout() {
    StateBoard board = backend().stateBoard("down", Duration.ofMinutes(1));
    board.post(Map.of("k", "v"));
    server.pause();
    assertThatThrownBy(() -> board.post(Map.of("k", "w")))
        .isInstanceOf(RedisUnavailableException.class);
    assertThatThrownBy(board::read).isInstanceOf(RedisUnavailableException.class);
    server.resume();
    // a post Redis did not confirm in time may still land: the old state or the new, nothing else
    // (read by another process: this one's breaker opened on the failures)
    assertThat(backend().stateBoard("down", Duration.ofMinutes(1)).read().get("k")).isIn("v", "w");
  }
}
