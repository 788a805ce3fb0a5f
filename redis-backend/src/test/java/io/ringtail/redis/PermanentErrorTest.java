package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Errors that retrying cannot fix surface at once with Redis's own message, are logged once, and
 * are not outages: no policy answers them and the breaker stays closed.
 */
@ExtendWith(RedisExtension.class)
class PermanentErrorTest {
  private static final Duration TIMEOUT = Duration.ofMillis(250);

  @Test
  void noPerm_surfacesAtOnce_isLoggedOnce_andIsNotAnOutage(RedisProcess server) throws IOException {
    RedisClient admin = RedisTestSupport.client();
    RedisClient limited = RedisTestSupport.client();
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger log = Logger.getLogger(ScriptRunner.class.getName());
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            logged.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(capture);
    try (StatefulRedisConnection<String, String> root = admin.connect(server.uri())) {
      createUser(root, "ringtail-perm", AclTest.documentedAcl());
      RedisURI uri =
          RedisURI.builder(server.uri()).withAuthentication("ringtail-perm", "secret").build();
      try (StatefulRedisConnection<String, String> app = limited.connect(uri)) {
        RedisBackend outside =
            RedisBackend.builder(app)
                .keyPrefix("other")
                .commandTimeout(TIMEOUT)
                .outagePolicy(OutagePolicy.FAIL_CLOSED)
                .build();
        RateLimiter limiter =
            outside.rateLimiter(
                "perm",
                RateLimitConfig.builder()
                    .limit(5)
                    .timeSource(new ManualTimeSource(1_000_000_000_000_000L))
                    .build());
        for (int i = 0; i < 30; i++) {
          long start = System.nanoTime();
          assertThatThrownBy(() -> limiter.tryAcquire("alice"))
              .isInstanceOf(RedisRejectedException.class)
              .hasMessageStartingWith("NOPERM");
          assertThat(System.nanoTime() - start)
              .as("answered by Redis, not by the timeout")
              .isLessThan(TIMEOUT.toNanos());
        }
        assertThatThrownBy(
                () ->
                    outside
                        .sumCap("perm", SumCapConfig.builder().cap(BigDecimal.TEN).build())
                        .tryAdd("alice", BigDecimal.ONE))
            .isInstanceOf(RedisRejectedException.class)
            .hasMessageStartingWith("NOPERM");
        assertThat(outside.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(outside.circuitBreaker().getMetrics().getNumberOfFailedCalls()).isZero();
        assertThat(outside.outageDecisions()).as("no policy answered a permanent error").isZero();
        assertThat(logged).as("one log line per distinct refusal").hasSize(1);
        assertThat(logged.get(0).getMessage()).contains("NOPERM");
      }
    } finally {
      log.removeHandler(capture);
      RedisTestSupport.shutdown(admin);
      RedisTestSupport.shutdown(limited);
    }
  }

  @Test
  void wrongType_surfacesWithRedisMessage_andIsNotAnOutage(RedisProcess server) {
    RedisClient client = RedisTestSupport.client();
    try (StatefulRedisConnection<String, String> connection = client.connect(server.uri())) {
      RedisBackend backend =
          RedisBackend.builder(connection)
              .commandTimeout(TIMEOUT)
              .outagePolicy(OutagePolicy.FAIL_OPEN)
              .build();
      String name = RedisTestSupport.uniqueName("wrongtype");
      for (String key : DecisionKeys.of("ringtail", name, "bob", RedisRateLimiter.KEY_SUFFIXES)) {
        connection.sync().set(key, "not a limiter");
      }
      RateLimiter limiter = backend.rateLimiter(name, RateLimitConfig.builder().limit(5).build());
      for (int i = 0; i < 10; i++) {
        assertThatThrownBy(() -> limiter.tryAcquire("bob"))
            .isInstanceOf(RedisRejectedException.class)
            .hasMessageContaining("WRONGTYPE");
      }
      assertThat(limiter.tryAcquire("carol").allowed()).as("other keys are unaffected").isTrue();
      assertThat(backend.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.CLOSED);
      assertThat(backend.outageDecisions()).isZero();
    } finally {
      RedisTestSupport.shutdown(client);
    }
  }

  @Test
  void histogramSnapshot_refusedRead_isRejectedNotAnOutage(RedisProcess server) throws IOException {
    RedisClient admin = RedisTestSupport.client();
    RedisClient limited = RedisTestSupport.client();
    try (StatefulRedisConnection<String, String> root = admin.connect(server.uri())) {
      String acl = AclTest.documentedAcl().replace(" +mget", "");
      assertThat(acl).doesNotContain("+mget");
      createUser(root, "ringtail-nomget", acl);
      RedisURI uri =
          RedisURI.builder(server.uri()).withAuthentication("ringtail-nomget", "secret").build();
      try (StatefulRedisConnection<String, String> app = limited.connect(uri)) {
        RedisBackend backend =
            RedisBackend.builder(app)
                .commandTimeout(TIMEOUT)
                .outagePolicy(OutagePolicy.FAIL_CLOSED)
                .build();
        RedisHistogramWindow fleet =
            backend.histogramWindow(RedisTestSupport.uniqueName("nomget")).build();
        fleet.record(42);
        assertThat(fleet.flush(Duration.ofSeconds(5))).as("publishing is allowed").isTrue();
        long start = System.nanoTime();
        assertThatThrownBy(fleet::snapshot)
            .isInstanceOf(RedisRejectedException.class)
            .hasMessageStartingWith("NOPERM");
        assertThat(System.nanoTime() - start)
            .as("answered by Redis, not by the timeout")
            .isLessThan(TIMEOUT.toNanos() * 2);
        assertThat(backend.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.CLOSED);
      }
    } finally {
      RedisTestSupport.shutdown(admin);
      RedisTestSupport.shutdown(limited);
    }
  }

  /** ACL SETUSER {@code user} with the rules of {@code acl} (space-separated). */
  private static void createUser(
      StatefulRedisConnection<String, String> root, String user, String acl) {
    root.sync()
        .dispatch(
            CommandType.ACL,
            new StatusOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add(user).addKeys(acl.split(" ")));
  }
}
