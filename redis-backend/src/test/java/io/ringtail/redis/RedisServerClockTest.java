package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The server clock: one per backend, measured by its first reading (not when it is built), its
 * offset from the shortest of several round trips.
 */
@ExtendWith(RedisExtension.class)
class RedisServerClockTest {
  private static final long SLOW_FIRST_CALL_NANOS = Duration.ofMillis(80).toNanos();

  @Test
  void slowFirstRoundTrip_doesNotSetTheOffset(
      RedisBackend backend, RedisCommands<String, String> redis) {
    // A cold first call spends its time on the way out (class loading, script loading): its
    // midpoint lies before the server read TIME, so an offset taken from it runs ahead.
    AtomicBoolean first = new AtomicBoolean(true);
    TimeSource local =
        () ->
            first.getAndSet(false) ? System.nanoTime() - SLOW_FIRST_CALL_NANOS : System.nanoTime();
    TimeSource clock = new RedisServerClock(backend.runner, local);

    long error = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long before = clock.nanoTime();
      List<String> time = redis.time();
      long after = clock.nanoTime();
      long server =
          Long.parseLong(time.get(0)) * 1_000_000_000L + Long.parseLong(time.get(1)) * 1_000L;
      long midpoint = before + (after - before) / 2;
      error = Math.min(error, Math.abs(midpoint - server));
    }
    assertThat(error).as("estimate error, ns").isLessThan(SLOW_FIRST_CALL_NANOS / 4);
  }

  @Test
  void serverClock_isOneInstance_measuredByItsFirstReading_notByTheBuild() {
    try (RedisProcess server = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      try {
        RedisCommands<String, String> admin = client.connect(server.uri()).sync();
        RedisBackend backend = RedisBackend.builder(client.connect(server.uri())).build();
        TimeSource clock = backend.serverClock();
        assertThat(backend.serverClock()).isSameAs(clock);
        assertThat(timeCalls(admin)).as("TIME calls before the first reading").isZero();

        long reading = clock.nanoTime();
        long measured = timeCalls(admin);
        assertThat(measured)
            .as("TIME calls of the first reading")
            .isBetween(1L, (long) RedisServerClock.START_ROUND_TRIPS);
        long wall = System.currentTimeMillis() * 1_000_000L;
        assertThat(Math.abs(reading - wall)).isLessThan(Duration.ofSeconds(1).toNanos());
        assertThat(backend.serverClock().nanoTime()).isGreaterThanOrEqualTo(reading);
        assertThat(timeCalls(admin)).as("TIME calls after later readings").isEqualTo(measured);
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void aDecision_measuresTheBackendsClock_whichItsReadingsThenShare() {
    try (RedisProcess server = RedisProcess.start()) {
      RedisClient client = RedisClient.create();
      try {
        RedisCommands<String, String> admin = client.connect(server.uri()).sync();
        RedisBackend backend = RedisBackend.builder(client.connect(server.uri())).build();
        backend
            .rateLimiter(
                "clock", RateLimitConfig.builder().limit(5).window(Duration.ofMinutes(1)).build())
            .tryAcquire("k");
        long afterDecision = timeCalls(admin);
        assertThat(afterDecision).as("TIME calls of the decision").isPositive();
        backend.serverClock().nanoTime();
        assertThat(timeCalls(admin)).as("TIME calls of the first reading").isEqualTo(afterDecision);
      } finally {
        client.shutdown();
      }
    }
  }

  /** TIME commands the server has run, scripts' included. */
  private static long timeCalls(RedisCommands<String, String> admin) {
    Matcher m = Pattern.compile("cmdstat_time:calls=(\\d+),").matcher(admin.info("commandstats"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
