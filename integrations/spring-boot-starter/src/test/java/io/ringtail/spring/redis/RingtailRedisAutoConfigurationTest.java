package io.ringtail.spring.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.LocalSentinelGroup;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.redis.testkit.TlsCertificates;
import io.ringtail.spring.BootAutoConfigurations;
import io.ringtail.spring.RingtailAutoConfiguration;
import io.ringtail.spring.observation.RingtailObservationAutoConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/** The Redis backend on the application's Lettuce client, against a real redis-server. */
class RingtailRedisAutoConfigurationTest {
  private static RedisProcess server;

  @BeforeAll
  static void start() {
    server = RedisProcess.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            BootAutoConfigurations.of(
                new String[][] {
                  BootAutoConfigurations.DATA_REDIS,
                  BootAutoConfigurations.METRICS,
                  BootAutoConfigurations.SIMPLE_EXPORT,
                  BootAutoConfigurations.COMPOSITE_REGISTRY
                },
                RingtailAutoConfiguration.class,
                RingtailObservationAutoConfiguration.class,
                RingtailRedisAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port());
  }

  @Configuration(proxyBeanMethods = false)
  static class FleetWindow {
    @Bean
    RedisRollingWindow fleetLatency(RedisBackend backend) {
      return backend.window("fleet-" + System.nanoTime()).length(Duration.ofMinutes(1)).build();
    }
  }

  @Test
  void enabled_buildsTheBackendOnTheApplicationsClient_andBindsTheFleetWindow() {
    runner()
        .withUserConfiguration(FleetWindow.class)
        .withPropertyValues(
            "ringtail.redis.enabled=true",
            "ringtail.redis.key-prefix=shop",
            "ringtail.redis.command-timeout=2s")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(RedisBackend.class);
              RedisRollingWindow fleet = context.getBean(RedisRollingWindow.class);
              for (int i = 1; i <= 20; i++) {
                fleet.record(i * 1_000_000L);
              }
              WindowSnapshot s = fleet.snapshot();
              assertThat(s.count()).isEqualTo(20);
              assertThat(s.valueAtPercentile(95)).isEqualTo(19_000_000);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get("ringtail.window.samples")
                          .tag("window", "fleetLatency")
                          .gauge()
                          .value())
                  .isEqualTo(20);
              assertThat(
                      registry
                          .get("ringtail.window.recorded")
                          .tag("window", "fleetLatency")
                          .functionCounter()
                          .count())
                  .isEqualTo(20);
              try (RedisClient client = RedisClient.create(server.uri());
                  StatefulRedisConnection<String, String> direct = client.connect()) {
                assertThat(direct.sync().keys("shop*")).isNotEmpty();
              }
            });
  }

  @Test
  void notEnabled_noBackend_whateverTheClassPath() {
    runner().run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
    runner()
        .withClassLoader(new FilteredClassLoader("io.ringtail.redis", "org.springframework.data"))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
  }

  /**
   * Every auto-configuration the starter declares (its AutoConfiguration.imports), on {@code
   * classPath}, with {@code ringtail.redis.enabled=true}.
   */
  private static ApplicationContextRunner requirements(ClassLoader classPath) {
    Class<?>[] ours =
        ImportCandidates.load(
                AutoConfiguration.class, RingtailAutoConfiguration.class.getClassLoader())
            .getCandidates()
            .stream()
            .filter(name -> name.startsWith("io.ringtail.spring."))
            .map(name -> ClassUtils.resolveClassName(name, null))
            .toArray(Class<?>[]::new);
    assertThat(ours).contains(RingtailRedisAutoConfiguration.class);
    return new ApplicationContextRunner()
        .withClassLoader(classPath)
        .withConfiguration(AutoConfigurations.of(ours))
        .withPropertyValues("ringtail.redis.enabled=true");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "io.ringtail.redis|io.ringtail:ringtail-redis",
        "org.springframework.data.redis|org.springframework.boot:spring-boot-starter-data-redis",
        "io.lettuce|io.lettuce:lettuce-core",
        "io.ringtail.redis,org.springframework.data.redis|io.ringtail:ringtail-redis and"
            + " org.springframework.boot:spring-boot-starter-data-redis"
      })
  void enabled_withAPieceMissingFromTheClassPath_failsTheStart_namingIt(
      String hidden, String named) {
    requirements(new FilteredClassLoader(hidden.split(",")))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith("ringtail.redis.enabled=true needs ")
                    .hasMessageContaining(named)
                    .hasMessageContaining("or set ringtail.redis.enabled=false"));
  }

  @Test
  void enabled_withoutSpringDataRedis_startsOnTheApplicationsOwnBackend() {
    requirements(new FilteredClassLoader("org.springframework.data.redis"))
        .withUserConfiguration(OwnBackend.class)
        .run(context -> assertThat(context).hasNotFailed().hasBean("myBackend"));
    ownClient.shutdown();
  }

  static RedisClient ownClient;

  @Configuration(proxyBeanMethods = false)
  static class OwnBackend {
    @Bean
    RedisBackend myBackend() {
      ownClient = RedisClient.create(server.uri());
      return RedisBackend.builder(ownClient.connect()).keyPrefix("mine").build();
    }
  }

  @Test
  void ownBackend_replacesTheStarters() {
    runner()
        .withUserConfiguration(OwnBackend.class)
        .withPropertyValues("ringtail.redis.enabled=true")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(RedisBackend.class)
                  .hasBean("myBackend")
                  .doesNotHaveBean(RingtailLettuceClient.class);
            });
    ownClient.shutdown();
  }

  @Test
  void enabledWithoutLettuce_failsAtStartupSayingWhy() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RingtailRedisAutoConfiguration.class))
        .withPropertyValues("ringtail.redis.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith(
                        "ringtail.redis.enabled=true needs Spring Data Redis on Lettuce"));
  }

  private static ApplicationContextRunner bare() {
    return new ApplicationContextRunner()
        .withConfiguration(
            BootAutoConfigurations.of(
                new String[][] {BootAutoConfigurations.DATA_REDIS},
                SslAutoConfiguration.class,
                RingtailRedisAutoConfiguration.class));
  }

  /**
   * A rate limiter of {@code limit} a second on {@code backend} whose clock stands still: every
   * request falls in one window, so exactly {@code limit} are admitted per key.
   */
  static RateLimiter limiterAtOneInstant(RedisBackend backend, String name, int limit) {
    return backend.rateLimiter(
        name,
        RateLimitConfig.builder()
            .limit(limit)
            .timeSource(new ManualTimeSource(1_000_000_000L))
            .build());
  }

  /**
   * Runs {@code decision} until Redis answers it (bounded; the backend fails closed meanwhile,
   * counting outage decisions); returns the answer.
   */
  private static boolean decided(
      RedisBackend backend, java.util.function.BooleanSupplier decision) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      long outages = backend.outageDecisions();
      boolean allowed = decision.getAsBoolean();
      if (backend.outageDecisions() == outages) {
        return allowed;
      }
      assertThat(System.nanoTime()).as("Redis answering within 60 s").isLessThan(deadline);
      RedisProcess.pollPause();
    }
  }

  @Test
  void sentinelProperties_theBackendFollowsAFailover() {
    try (LocalSentinelGroup group = LocalSentinelGroup.start()) {
      String nodes =
          group.sentinels().stream()
              .map(s -> "127.0.0.1:" + s.port())
              .collect(java.util.stream.Collectors.joining(","));
      bare()
          .withPropertyValues(
              "spring.data.redis.sentinel.master=" + LocalSentinelGroup.MASTER,
              "spring.data.redis.sentinel.nodes=" + nodes,
              "ringtail.redis.enabled=true",
              "ringtail.redis.command-timeout=500ms")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                RedisBackend backend = context.getBean(RedisBackend.class);
                RateLimiter limiter = limiterAtOneInstant(backend, "starter-sentinel", 3);
                assertThat(limiter.tryAcquire("k").allowed()).isTrue();
                assertThat(limiter.tryAcquire("k").allowed()).isTrue();
                group.awaitReplicated(Duration.ofSeconds(10));

                RedisProcess old = group.primary();
                old.kill();
                group.awaitFailover(old, Duration.ofSeconds(30));
                assertThat(decided(backend, () -> limiter.tryAcquire("k").allowed()))
                    .as("the third permit, on the promoted replica")
                    .isTrue();
                assertThat(limiter.tryAcquire("k").allowed()).isFalse();
              });
    }
  }

  @Test
  void sslAndAclUserProperties_theBackendTalksTlsAsThatUser() {
    TlsCertificates tls = TlsCertificates.create();
    int tlsPort = RedisProcess.freePort(false);
    List<String> conf = new ArrayList<>(tls.serverConf(tlsPort));
    conf.add("user app on >app-secret ~* &* +@all");
    try (RedisProcess secure = RedisProcess.start(RedisProcess.freePort(false), conf)) {
      bare()
          .withPropertyValues(
              "spring.data.redis.host=127.0.0.1",
              "spring.data.redis.port=" + tlsPort,
              "spring.data.redis.username=app",
              "spring.data.redis.password=app-secret",
              "spring.data.redis.ssl.enabled=true",
              "spring.data.redis.ssl.bundle=redis",
              "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + tls.certificate(),
              "ringtail.redis.enabled=true")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                RedisRollingWindow w =
                    context.getBean(RedisBackend.class).window("starter-tls").build();
                for (int i = 1; i <= 10; i++) {
                  w.record(i);
                }
                assertThat(w.snapshot().count()).isEqualTo(10);
                assertThat(w.stats().failedCalls()).isZero();
                try (RedisClient client = RedisClient.create(secure.uri());
                    StatefulRedisConnection<String, String> admin = client.connect()) {
                  assertThat(admin.sync().clientList())
                      .as("the backend's connection is the ACL user's")
                      .contains("user=app");
                }
              });
    }
  }
}
