package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.ringtail.ManualTimeSource;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a process of a fleet window loses when it dies (abandoned mid-run like a kill -9: no flush,
 * no close), as the docs state it: with a publish interval of at least a bucket, what it recorded
 * since the start of the bucket that was live at its last tick (the ticker holds the live bucket
 * back until it closes), at most a bucket plus an interval of its samples; with a shorter interval,
 * what it recorded since its last tick, at most an interval. Ticks run by hand on a manual clock,
 * at random phases, and the process dies at a random instant; another process merges what it left.
 */
class FleetLossBoundTest {
  private static final long T0 = 1_000_000_000_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();

  @BeforeEach
  void start() {
    server = RedisProcess.start();
  }

  @AfterEach
  void stop() {
    for (RedisClient c : clients) {
      RedisTestSupport.shutdown(c);
    }
    server.close();
  }

  /** Keyed windows on a backend of their own, whose ticker never runs by itself. */
  private RedisKeyedHistogramWindows process(
      String name, ManualTimeSource time, Duration interval) {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    ScheduledThreadPoolExecutor never =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public ScheduledFuture<?> scheduleAtFixedRate(
              Runnable task, long delay, long period, TimeUnit unit) {
            return super.schedule(() -> {}, 1, TimeUnit.DAYS);
          }
        };
    return RedisBackend.builder(client.connect(server.uri()))
        .commandTimeout(TIMEOUT)
        .build()
        .keyedHistogramWindows(name)
        .timeSource(time)
        .publishInterval(interval)
        .scheduler(never)
        .build();
  }

  @Test
  void intervalOfABucket_losesWhatWasRecordedSinceTheLiveBucketOfTheLastTick_atMostBoth()
      throws Exception {
    assertLossBound(Duration.ofSeconds(1), true);
  }

  @Test
  void intervalShorterThanABucket_losesWhatWasRecordedSinceTheLastTick_atMostAnInterval()
      throws Exception {
    assertLossBound(Duration.ofMillis(250), false);
  }

  private void assertLossBound(Duration interval, boolean holdsTheLiveBucket) throws Exception {
    long intervalNanos = interval.toNanos();
    SplittableRandom random = new SplittableRandom(interval.toMillis());
    for (int trial = 0; trial < 6; trial++) {
      ManualTimeSource time = new ManualTimeSource(T0);
      String name = RedisTestSupport.uniqueName("loss");
      RedisKeyedHistogramWindows survivor = process(name, time, interval);
      survivor.record("k", 1);
      assertThat(survivor.flush(TIMEOUT)).isTrue(); // the survivor holds the merger lease
      int clientOfVictim = clients.size();
      RedisKeyedHistogramWindows victim = process(name, time, interval);
      long phase = random.nextLong(intervalNanos); // when in each interval the victim ticks
      long dies = T0 + 10 * SECOND + random.nextLong(5 * SECOND);
      long nextTick = T0 + phase;
      long lastTick = Long.MIN_VALUE;
      List<Long> recordedAt = new ArrayList<>();
      // 1,000 samples a second: one a millisecond, ticking on the way
      for (long t = T0; t < dies; t += 1_000_000L) {
        if (t >= nextTick) {
          time.set(nextTick);
          victim.tick().get(5, TimeUnit.SECONDS);
          lastTick = nextTick;
          nextTick += intervalNanos;
        }
        time.set(t);
        victim.record("k", 5);
        recordedAt.add(t);
      }
      time.set(dies);
      RedisTestSupport.shutdown(clients.get(clientOfVictim)); // dies: nothing more leaves it
      survivor.tick().get(5, TimeUnit.SECONDS); // merges what the victim's ticks sent

      long sentBefore = holdsTheLiveBucket ? Math.floorDiv(lastTick, SECOND) * SECOND : lastTick;
      long kept = recordedAt.stream().filter(t -> t < sentBefore).count();
      long lost = recordedAt.size() - kept;
      assertThat(survivor.snapshot("k").count() - 1)
          .as("trial %d: what the fleet counts of the victim", trial)
          .isEqualTo(kept);
      long bound = (holdsTheLiveBucket ? SECOND + intervalNanos : intervalNanos) / 1_000_000L;
      assertThat(lost)
          .as("trial %d: samples lost (1 a ms), at most %d ms of them", trial, bound)
          .isLessThanOrEqualTo(bound)
          .isPositive();
    }
  }
}
