package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** The fleet's page claims on a real redis-server: one per key per period, and on outage, page. */
class FleetPagerTest {
  private final RedisProcess server = RedisProcess.start();
  private final RedisClient client = RedisClient.create(server.uri());
  private final StatefulRedisConnection<String, String> connection = client.connect();

  @AfterEach
  void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    server.close();
  }

  private RingtailAnomalyAutoConfiguration.FleetPager pager(RedisBackend backend) {
    DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    beans.registerSingleton("backend", backend);
    return new RingtailAnomalyAutoConfiguration.FleetPager(
        beans.getBeanProvider(RedisBackend.class), Duration.ofMinutes(30));
  }

  @Test
  void twoInstances_claimOneKey_onlyTheFirstPages_andAnotherKeyIsItsOwn() {
    RedisBackend backend = RedisBackend.builder(connection).keyPrefix("t1").build();
    RingtailAnomalyAutoConfiguration.FleetPager a = pager(backend);
    RingtailAnomalyAutoConfiguration.FleetPager b = pager(backend);
    assertThat(a.claim("http.server.requests {uri=/orders} p95")).isTrue();
    assertThat(b.claim("http.server.requests {uri=/orders} p95")).isFalse();
    assertThat(a.claim("http.server.requests {uri=/orders} p95")).isFalse();
    assertThat(b.claim("http.server.requests {uri=/search} p95")).isTrue();
  }

  @Test
  void redisGone_theClaimIsGranted_twoPagesRatherThanNone() {
    RedisBackend backend =
        RedisBackend.builder(connection)
            .keyPrefix("t2")
            .commandTimeout(Duration.ofMillis(200))
            .build();
    RingtailAnomalyAutoConfiguration.FleetPager a = pager(backend);
    assertThat(a.claim("first")).isTrue(); // builds the limiter while Redis answers
    server.kill();
    assertThat(a.claim("second")).isTrue();
    assertThat(backend.outageDecisions()).isPositive();
  }
}
