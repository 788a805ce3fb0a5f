package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.testkit.BackendOptions;
import io.ringtail.redis.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two clients whose clocks differ from the server's by +5 s and -5 s, each on its own connection,
 * share one window and one detector. With the fleet time base (server time, the skew guard, or the
 * server clock) they decide correctly; the naive controls show the skew would otherwise matter.
 */
@ExtendWith(RedisExtension.class)
@BackendOptions(outagePolicy = OutagePolicy.THROW)
class ClockSkewTest {
  private static final long SKEW = Duration.ofSeconds(5).toNanos();
  private static RedisBackend a;
  private static RedisBackend b;

  @BeforeAll
  static void connect(RedisBackend onA, RedisBackend onB) {
    a = onA;
    b = onB;
  }

  /** An epoch-nanosecond wall clock off by {@code skewNanos}. */
  private static TimeSource wallClock(long skewNanos) {
    long origin = System.currentTimeMillis() * 1_000_000 - System.nanoTime();
    return () -> System.nanoTime() + origin + skewNanos;
  }

  @Test
  void window_skewGuard_placesSkewedSamplesOnServerTime() {
    String name = RedisTestSupport.uniqueName("skew");
    Duration length = Duration.ofSeconds(3);
    RedisRollingWindow ahead =
        a.window(name)
            .length(length)
            .timeSource(wallClock(SKEW))
            .maxClockSkew(Duration.ofSeconds(1))
            .build();
    RedisRollingWindow behind =
        b.window(name)
            .length(length)
            .timeSource(wallClock(-SKEW))
            .maxClockSkew(Duration.ofSeconds(1))
            .build();
    RedisRollingWindow reader = a.window(name).length(length).build();
    for (int i = 0; i < 5; i++) {
      ahead.record(10);
      behind.record(20);
    }
    assertThat(ahead.flush(Duration.ofSeconds(5))).isTrue();
    assertThat(behind.flush(Duration.ofSeconds(5))).isTrue();
    WindowSnapshot s = reader.snapshot();
    assertThat(s.count()).isEqualTo(10);
    assertThat(s.sum()).isEqualTo(150);
    assertThat(ahead.stats().skewCorrections()).isEqualTo(5);
    assertThat(behind.stats().skewCorrections()).isEqualTo(5);
  }

  @Test
  void window_withoutGuard_skewedClientLosesItsSamples_control() {
    String name = RedisTestSupport.uniqueName("noguard");
    Duration length = Duration.ofSeconds(3);
    RedisRollingWindow behind = b.window(name).length(length).timeSource(wallClock(-SKEW)).build();
    RedisRollingWindow reader = a.window(name).length(length).build();
    for (int i = 0; i < 5; i++) {
      behind.record(20);
    }
    assertThat(behind.flush(Duration.ofSeconds(5))).isTrue();
    assertThat(reader.snapshot().count())
        .as("5 s old on the server's clock: outside a 3 s window")
        .isZero();
  }

  @Test
  void window_serverTimeBase_ignoresClientClocks() {
    String name = RedisTestSupport.uniqueName("servertime");
    RedisRollingWindow one = a.window(name).length(Duration.ofSeconds(3)).build();
    RedisRollingWindow two = b.window(name).length(Duration.ofSeconds(3)).build();
    for (int i = 0; i < 5; i++) {
      one.record(1);
      two.record(2);
    }
    assertThat(one.flush(Duration.ofSeconds(5))).isTrue();
    assertThat(two.flush(Duration.ofSeconds(5))).isTrue();
    assertThat(two.snapshot().count()).isEqualTo(10);
  }

  @Test
  void serverClock_cancelsLocalSkew() {
    TimeSource clockA = new RedisServerClock(a.runner, wallClock(SKEW));
    TimeSource clockB = new RedisServerClock(b.runner, wallClock(-SKEW));
    long readA = clockA.nanoTime();
    long readB = clockB.nanoTime();
    assertThat(Math.abs(readA - readB)).isLessThan(Duration.ofMillis(500).toNanos());
    assertThat(Math.abs(a.serverClock().nanoTime() - readA))
        .isLessThan(Duration.ofMillis(500).toNanos());
  }

  @Test
  void thresholdDetector_onServerClock_countsEventsFromBothClients() {
    ThresholdConfig.Builder rule =
        ThresholdConfig.builder().threshold(2).window(Duration.ofSeconds(9));
    String key = RedisTestSupport.uniqueName("acct");
    ThresholdDetector onA =
        a.thresholdDetector(
            "skew-rule", rule.timeSource(new RedisServerClock(a.runner, wallClock(SKEW))).build());
    ThresholdDetector onB =
        b.thresholdDetector(
            "skew-rule", rule.timeSource(new RedisServerClock(b.runner, wallClock(-SKEW))).build());
    assertThat(onA.record(key, "e1").fired()).isFalse();
    ThresholdDecision second = onB.record(key, "e2");
    assertThat(second.outcome()).isEqualTo(ThresholdDecision.Outcome.COUNTED);
    assertThat(second.fired()).isTrue();
  }

  @Test
  void thresholdDetector_onSkewedWallClocks_missesTheCorrelation_control() {
    ThresholdConfig.Builder rule =
        ThresholdConfig.builder().threshold(2).window(Duration.ofSeconds(9));
    String key = RedisTestSupport.uniqueName("acct");
    ThresholdDetector onA =
        a.thresholdDetector("skew-rule-naive", rule.timeSource(wallClock(SKEW)).build());
    ThresholdDetector onB =
        b.thresholdDetector("skew-rule-naive", rule.timeSource(wallClock(-SKEW)).build());
    onA.record(key, "e1");
    assertThat(onB.record(key, "e2").outcome()).isEqualTo(ThresholdDecision.Outcome.EXPIRED);
  }
}
