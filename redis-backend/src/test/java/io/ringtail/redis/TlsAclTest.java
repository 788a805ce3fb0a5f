package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.redis.testkit.TlsCertificates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real server serving TLS (with a certificate this test makes) to an ACL user holding only the
 * documented rules: windows and decisions work over it, and neither plain text on the TLS port nor
 * a wrong password gets in.
 */
class TlsAclTest {
  private static TlsCertificates tls;
  private static RedisProcess server;
  private static int tlsPort;

  @BeforeAll
  static void start() throws Exception {
    tls = TlsCertificates.create();
    tlsPort = RedisProcess.freePort(false);
    List<String> conf = new ArrayList<>(tls.serverConf(tlsPort));
    conf.add("user ringtail-app " + AclTest.documentedAcl());
    server = RedisProcess.start(RedisProcess.freePort(false), conf);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static RedisURI uri(String password) {
    return RedisURI.builder()
        .withHost("127.0.0.1")
        .withPort(tlsPort)
        .withSsl(true)
        .withVerifyPeer(true)
        .withAuthentication("ringtail-app", password)
        .withTimeout(Duration.ofSeconds(5))
        .build();
  }

  private static RedisClient tlsClient() {
    RedisClient client = RedisClient.create();
    client.setOptions(
        RedisBackend.failFastClientOptions(Duration.ofSeconds(5))
            .mutate()
            .sslOptions(SslOptions.builder().trustManager(tls.certificate().toFile()).build())
            .build());
    return client;
  }

  @Test
  void overTls_asTheDocumentedAclUser_windowsAndDecisionsWork() {
    RedisClient client = tlsClient();
    try (StatefulRedisConnection<String, String> connection = client.connect(uri("secret"))) {
      RedisBackend backend =
          RedisBackend.builder(connection).outagePolicy(OutagePolicy.THROW).build();
      RedisRollingWindow w = backend.window(RedisTestSupport.uniqueName("tls")).build();
      for (int i = 1; i <= 20; i++) {
        w.record(i);
      }
      assertThat(w.snapshot().count()).isEqualTo(20);
      assertThat(w.stats().failedCalls()).isZero();
      RateLimiter limiter =
          backend.rateLimiter(
              "tls",
              RateLimitConfig.builder().limit(2).timeSource(new ManualTimeSource(1)).build());
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
      assertThat(limiter.tryAcquire("k").allowed()).isTrue();
      assertThat(limiter.tryAcquire("k").allowed()).isFalse();
      assertThat(backend.serverClock().nanoTime()).isPositive();
    } finally {
      RedisTestSupport.shutdown(client);
    }
  }

  @Test
  void wrongPassword_orPlainTextOnTheTlsPort_isRefused() {
    RedisClient client = tlsClient();
    RedisClient plain = RedisTestSupport.client();
    try {
      assertThatThrownBy(() -> client.connect(uri("wrong")).close())
          .isInstanceOf(RedisConnectionException.class);
      RedisURI noTls =
          RedisURI.builder(uri("secret")).withSsl(false).withTimeout(Duration.ofSeconds(2)).build();
      assertThatThrownBy(() -> plain.connect(noTls).sync().ping())
          .isInstanceOf(RuntimeException.class);
    } finally {
      RedisTestSupport.shutdown(client);
      RedisTestSupport.shutdown(plain);
    }
  }
}
