package io.ringtail.spring.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.tracing.LettuceObservationContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.ringtail.decision.RateLimiter;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisRollingWindow;
import io.ringtail.redis.testkit.LocalRedisCluster;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.spring.BootAutoConfigurations;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Ringtail's own Lettuce client: the application's target and settings, without Lettuce's command
 * observations; against real redis-servers.
 */
class RingtailLettuceClientTest {
  private static final String[] OBSERVATION = {
    "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
  };

  /** Boot 4 observes each Lettuce command; Boot 3.5 records its latency in a timer per type. */
  private static final String[] LETTUCE_INSTRUMENTATION = {
    "org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.redis.LettuceMetricsAutoConfiguration"
  };

  private static ApplicationContextRunner observedApplication() {
    return new ApplicationContextRunner()
        .withConfiguration(
            BootAutoConfigurations.of(
                new String[][] {
                  BootAutoConfigurations.DATA_REDIS,
                  BootAutoConfigurations.METRICS,
                  BootAutoConfigurations.SIMPLE_EXPORT,
                  BootAutoConfigurations.COMPOSITE_REGISTRY,
                  OBSERVATION,
                  LETTUCE_INSTRUMENTATION
                },
                RingtailRedisAutoConfiguration.class))
        .withPropertyValues("ringtail.redis.enabled=true");
  }

  /**
   * The type of every command Boot's Lettuce instrumentation saw since the call: observations
   * started on Boot 4, command latency timers on Boot 3.5.
   */
  private static Supplier<List<String>> instrumentedCommands(ApplicationContext context) {
    if (BootAutoConfigurations.boot4()) {
      LettuceCommands observed = new LettuceCommands();
      context.getBean(ObservationRegistry.class).observationConfig().observationHandler(observed);
      return () -> observed.started;
    }
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    return () ->
        meters.find("lettuce.command.completion").timers().stream()
            .map(t -> t.getId().getTag("command"))
            .toList();
  }

  /** The command of every Lettuce observation started. */
  static final class LettuceCommands implements ObservationHandler<LettuceObservationContext> {
    final List<String> started = new CopyOnWriteArrayList<>();

    @Override
    public void onStart(LettuceObservationContext context) {
      started.add(context.getRequiredCommand().getType().toString());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return context instanceof LettuceObservationContext;
    }
  }

  @Test
  void ringtailsCommandsAreNotObserved_theApplicationsStillAre() {
    try (RedisProcess server = RedisProcess.start()) {
      observedApplication()
          .withPropertyValues(
              "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port())
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                Supplier<List<String>> observed = instrumentedCommands(context);

                RedisBackend backend = context.getBean(RedisBackend.class);
                RateLimiter limiter =
                    RingtailRedisAutoConfigurationTest.limiterAtOneInstant(backend, "untraced", 2);
                assertThat(limiter.tryAcquire("k").allowed()).isTrue();
                assertThat(limiter.tryAcquire("k").allowed()).isTrue();
                assertThat(limiter.tryAcquire("k").allowed()).isFalse();
                RedisRollingWindow window = backend.window("untraced-window").build();
                window.record(5);
                assertThat(window.snapshot().count()).isEqualTo(1);
                assertThat(observed.get()).as("Ringtail's commands").isEmpty();

                context.getBean(StringRedisTemplate.class).opsForValue().set("app-key", "v");
                assertThat(observed.get()).as("the application's command").contains("SET");
              });
    }
  }

  @Test
  void clusterProperties_theBackendDecidesOnTheCluster_andClosesItsClient() {
    try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
      String nodes =
          cluster.nodes().stream()
              .map(n -> "127.0.0.1:" + n.port())
              .collect(Collectors.joining(","));
      AtomicReference<RingtailLettuceClient> client = new AtomicReference<>();
      observedApplication()
          .withPropertyValues("spring.data.redis.cluster.nodes=" + nodes)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                RateLimiter limiter =
                    RingtailRedisAutoConfigurationTest.limiterAtOneInstant(
                        context.getBean(RedisBackend.class), "cluster", 3);
                int admitted = 0;
                for (int i = 0; i < 10; i++) {
                  admitted += limiter.tryAcquire("k" + (i % 2)).allowed() ? 1 : 0;
                }
                assertThat(admitted).as("3 for each of two keys").isEqualTo(6);
                client.set(context.getBean(RingtailLettuceClient.class));
                assertThat(client.get().cluster.isOpen()).isTrue();
              });
      assertThat(client.get().cluster.isOpen()).as("closed with the context").isFalse();
    }
  }
}
