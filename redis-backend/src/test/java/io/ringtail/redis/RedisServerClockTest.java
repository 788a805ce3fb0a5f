package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.sync.RedisCommands;
import io.ringtail.TimeSource;
import io.ringtail.redis.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The server clock's start: its offset comes from the shortest of several round trips. */
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
}
