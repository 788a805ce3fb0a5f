package io.ringtail.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.ringtail.WindowSnapshot;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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
  void notEnabled_orWithoutSpringDataRedis_noBackend() {
    runner().run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
    runner()
        .withPropertyValues("ringtail.redis.enabled=true")
        .withClassLoader(new FilteredClassLoader(LettuceConnectionFactory.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisBackend.class));
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
                  .doesNotHaveBean(RingtailRedisAutoConfiguration.RingtailRedisConnection.class);
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
}
