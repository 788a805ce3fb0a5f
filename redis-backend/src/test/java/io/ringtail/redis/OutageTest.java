package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Faults on a dedicated real redis-server: SIGSTOP/SIGCONT (hung), SIGKILL and restart (crash),
 * during a stream. The breaker opens, callers are never blocked beyond the timeout, nothing is
 * silently lost, and recording recovers after the server returns.
 */
class OutageTest extends DedicatedRedisTest {
  private static final Duration TIMEOUT = Duration.ofMillis(200);

  OutageTest() {
    super(TIMEOUT);
  }

  private RedisBackend backend(OutagePolicy policy) {
    return RedisBackend.builder(connection).commandTimeout(TIMEOUT).outagePolicy(policy).build();
  }

  /** Records {@code n} samples of value 1 and returns the longest a single record() call took. */
  private static long recordTimed(RedisRollingWindow w, int n) {
    long worst = 0;
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      w.record(1);
      worst = Math.max(worst, System.nanoTime() - start);
    }
    return worst;
  }

  private static void awaitFlushed(RedisRollingWindow w, RedisBackend backend) {
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "buffered samples replayed",
        () -> w.flush(Duration.ofMillis(500)),
        () -> w.stats() + " breaker " + backend.circuitBreaker().getState());
  }

  @Test
  void snapshot_withRecordsInFlightOnAHungServer_returnsWithinOneTimeout() {
    RedisBackend backend = backend(OutagePolicy.FAIL_OPEN);
    RedisRollingWindow w =
        backend
            .window("bounded")
            .length(Duration.ofMinutes(5))
            .localFallback(WindowConfig.builder().length(Duration.ofMinutes(5)).build())
            .build();
    w.record(1);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    server.pause();
    try {
      w.record(2);
      long start = System.nanoTime();
      WindowSnapshot s = w.snapshot();
      long elapsed = System.nanoTime() - start;
      assertThat(s.count()).as("the local fallback answers").isEqualTo(2);
      assertThat(Duration.ofNanos(elapsed))
          .as("waiting for the record and reading share one timeout")
          .isLessThan(TIMEOUT.multipliedBy(3).dividedBy(2));
    } finally {
      server.resume();
    }
  }

  @Test
  void hungServer_opensBreaker_buffers_andReplaysExactlyOnceAfterResume() {
    RedisBackend backend = backend(OutagePolicy.FAIL_OPEN);
    RedisRollingWindow w =
        backend.window("stream").length(Duration.ofMinutes(5)).maxInFlight(64).build();
    recordTimed(w, 200);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();

    server.pause();
    long worst = recordTimed(w, 300);
    RedisTestSupport.await(
        Duration.ofSeconds(10),
        "breaker to open",
        () -> {
          w.record(1);
          return backend.circuitBreaker().getState() == CircuitBreaker.State.OPEN;
        });
    long duringOutage = w.stats().recorded() - 200;
    assertThat(worst)
        .as("a record() never waits much beyond the command timeout")
        .isLessThan(TIMEOUT.toNanos() + Duration.ofSeconds(2).toNanos());
    assertThat(w.stats().buffered() + w.stats().failedCalls()).isPositive();
    RateLimiter limiter = backend.rateLimiter("api", RateLimitConfig.builder().limit(1).build());
    assertThat(limiter.tryAcquire("user").allowed()).as("fail open").isTrue();
    assertThat(backend.outageDecisions()).isEqualTo(1);

    server.resume();
    awaitFlushed(w, backend);
    WindowSnapshot s = w.snapshot();
    assertThat(s.count())
        .as("every sample exactly once, including ones that landed late")
        .isEqualTo(200 + duringOutage);
    assertThat(w.stats().dropped()).isZero();
    assertThat(w.stats().buffered()).isZero();
    assertThat(w.stats().replayed()).isPositive();
  }

  @Test
  void pausedServer_aDecisionAnsweredByPolicy_isNeverRecorded() {
    RedisBackend backend = backend(OutagePolicy.FAIL_CLOSED);
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    RateLimiter limiter =
        backend.rateLimiter(
            "paused",
            RateLimitConfig.builder()
                .limit(1)
                .window(Duration.ofMinutes(10))
                .timeSource(time)
                .build());
    SumCap cap =
        backend.sumCap(
            "paused",
            SumCapConfig.builder()
                .cap(new BigDecimal("10.00"))
                .window(Duration.ofMinutes(10))
                .timeSource(time)
                .build());
    assertThat(limiter.tryAcquire("warm-up").allowed()).isTrue();
    assertThat(cap.tryAdd("warm-up", BigDecimal.ONE).allowed()).isTrue();

    server.pause();
    RateDecision byPolicy = limiter.tryAcquire("alice");
    assertThat(byPolicy.allowed()).isFalse();
    assertThat(byPolicy.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(cap.tryAdd("alice", new BigDecimal("10.00")).allowed()).isFalse();
    assertThat(backend.outageDecisions()).isEqualTo(2);
    server.resume();
    int[] probe = {0};
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "Redis to decide again",
        () -> limiter.tryAcquire("probe-" + probe[0]++).allowed());

    RateDecision alice = limiter.tryAcquire("alice");
    assertThat(alice.allowed())
        .as("the request the policy denied was not recorded when Redis resumed")
        .isTrue();
    assertThat(alice.retryAfter()).isEqualTo(Duration.ofMinutes(10));
    assertThat(cap.tryAdd("alice", new BigDecimal("10.00")).allowed())
        .as("the amount the policy refused was not counted")
        .isTrue();
  }

  @Test
  void crashAndRestart_replaysBufferedSamples_andReloadsScripts() {
    RedisBackend backend = backend(OutagePolicy.FAIL_CLOSED);
    RedisRollingWindow w = backend.window("stream").length(Duration.ofMinutes(5)).build();
    recordTimed(w, 200);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    long reloads = w.stats().scriptReloads();

    server.kill();
    long worst = recordTimed(w, 300);
    assertThat(worst).isLessThan(TIMEOUT.toNanos() + Duration.ofSeconds(2).toNanos());
    assertThat(w.flush(Duration.ofSeconds(1)))
        .as("in-flight calls end by their timeout; replay still fails")
        .isFalse();
    assertThat(w.stats().buffered()).isEqualTo(300);
    assertThatThrownBy(w::snapshot).isInstanceOf(RedisUnavailableException.class);
    RateLimiter limiter = backend.rateLimiter("api", RateLimitConfig.builder().limit(5).build());
    assertThat(limiter.tryAcquire("user").allowed()).as("fail closed").isFalse();
    assertThat(limiter.tryAcquire("user").retryAfter()).isEqualTo(Duration.ofSeconds(1));
    RedisTestSupport.await(
        Duration.ofSeconds(10),
        "breaker to open",
        () -> {
          w.record(1);
          return backend.circuitBreaker().getState() == CircuitBreaker.State.OPEN;
        });
    long recorded = w.stats().recorded();

    server.restart();
    awaitFlushed(w, backend);
    WindowSnapshot s = w.snapshot();
    assertThat(s.count())
        .as(
            "the restarted (empty, no persistence) server holds every sample recorded "
                + "since the crash")
        .isEqualTo(recorded - 200);
    assertThat(w.stats().dropped()).isZero();
    assertThat(w.stats().scriptReloads())
        .as("NOSCRIPT after restart, recovered")
        .isGreaterThan(reloads);
  }

  @Test
  void thresholdEventsDuringOutage_areReplayedAfterRestart_andCrossingIsReported() {
    RedisBackend backend = backend(OutagePolicy.FAIL_OPEN);
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000_000L);
    List<Integer> crossings = new CopyOnWriteArrayList<>();
    ThresholdDetector rule =
        backend.thresholdDetector(
            "logons",
            ThresholdConfig.builder()
                .threshold(3)
                .maxEventsPerKey(10)
                .timeSource(time)
                .listener((k, d) -> crossings.add(d.count()))
                .build());
    assertThat(rule.record("jdoe", "e1").count()).isEqualTo(1);
    server.kill();
    assertThat(rule.record("jdoe", "e2").fired()).as("fail open").isFalse();
    assertThat(rule.record("jdoe", "e3").fired()).isFalse();
    assertThat(backend.decisionOutageStats().eventsBuffered()).isEqualTo(2);
    server.restart();
    RedisTestSupport.await(
        Duration.ofSeconds(30),
        "buffered events replayed",
        () -> {
          rule.record("jdoe", "e4");
          return backend.decisionOutageStats().eventsBuffered() == 0;
        },
        () -> backend.decisionOutageStats().toString());
    ThresholdDecision last = rule.record("jdoe", "e5");
    assertThat(last.count())
        .as("e1 died with the server (no persistence); e2..e5 are held")
        .isEqualTo(4);
    assertThat(crossings).as("the crossing caused by replayed events is reported once").hasSize(1);
    DecisionOutageStats stats = backend.decisionOutageStats();
    assertThat(stats.eventsDropped()).isZero();
    assertThat(stats.eventsReplayed()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void debugSleep_decisionsAnswerWithinTheTimeout_byPolicy() throws Exception {
    RedisBackend backend = backend(OutagePolicy.FAIL_OPEN);
    RateLimiter limiter = backend.rateLimiter("api", RateLimitConfig.builder().limit(1).build());
    assertThat(limiter.tryAcquire("user").allowed()).isTrue();
    assertThat(limiter.tryAcquire("user").allowed()).as("Redis says no").isFalse();
    try (StatefulRedisConnection<String, String> other = client.connect(server.uri())) {
      other
          .async()
          .dispatch(
              io.lettuce.core.protocol.CommandType.DEBUG,
              new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
              new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                  .add("SLEEP")
                  .add(2));
      long[] took = new long[1];
      int[] fresh = {0};
      RedisTestSupport.await(
          Duration.ofSeconds(5),
          "a decision answered by policy while Redis sleeps",
          () -> {
            long start = System.nanoTime();
            RateDecision d = limiter.tryAcquire("user-" + fresh[0]++);
            took[0] = System.nanoTime() - start;
            return d.allowed() && backend.outageDecisions() > 0;
          });
      assertThat(took[0])
          .as("the caller waited about the timeout, not the 2 s sleep")
          .isLessThan(TIMEOUT.toNanos() + Duration.ofMillis(700).toNanos());
      long start = System.nanoTime();
      assertThat(limiter.tryAcquire("user").allowed())
          .as("a key Redis denied is denied locally")
          .isFalse();
      assertThat(System.nanoTime() - start).isLessThan(TIMEOUT.toNanos());
      RedisTestSupport.await(
          Duration.ofSeconds(10),
          "Redis to decide again after the sleep",
          () -> {
            long before = backend.outageDecisions();
            limiter.tryAcquire("user-" + fresh[0]++);
            return backend.outageDecisions() == before;
          });
    }
    assertThat(backend.outageDecisions()).isPositive();
  }

  @Test
  void fullBuffer_dropsAreCounted() {
    RedisRollingWindow w = backend(OutagePolicy.THROW).window("small").bufferCapacity(10).build();
    w.record(1);
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    server.kill();
    for (int i = 0; i < 50; i++) {
      w.record(i);
    }
    w.flush(Duration.ofMillis(300));
    assertThat(w.stats().buffered()).isEqualTo(10);
    assertThat(w.stats().dropped()).isEqualTo(40);
    assertThat(w.stats().recorded()).isEqualTo(51);
  }

  @Test
  void outagePolicies_answerEveryDecisionKind() {
    RedisBackend open = backend(OutagePolicy.FAIL_OPEN);
    RedisBackend closed = backend(OutagePolicy.FAIL_CLOSED);
    RedisBackend strict = backend(OutagePolicy.THROW);
    server.kill();
    ThresholdConfig rule = ThresholdConfig.builder().threshold(3).build();
    SumCapConfig cap = SumCapConfig.builder().cap(new BigDecimal("10.00")).build();
    assertThat(open.thresholdDetector("t", rule).record("k", "e").fired()).isFalse();
    assertThat(closed.thresholdDetector("t", rule).record("k", "e").fired()).isTrue();
    assertThat(open.sumCap("s", cap).tryAdd("k", new BigDecimal("2.50")).allowed()).isTrue();
    assertThat(open.sumCap("s", cap).tryAdd("k", new BigDecimal("12")).allowed())
        .as("exceeds the cap alone")
        .isFalse();
    assertThat(closed.sumCap("s", cap).tryAdd("k", new BigDecimal("2.50")).retryAfter())
        .contains(Duration.ofSeconds(1));
    assertThatThrownBy(
            () ->
                strict.rateLimiter("r", RateLimitConfig.builder().limit(1).build()).tryAcquire("k"))
        .isInstanceOf(RedisUnavailableException.class);
    assertThat(open.outageDecisions()).isEqualTo(3);
    assertThat(closed.outageDecisions()).isEqualTo(2);
  }

  @Test
  void localFallback_answersSnapshotsDuringOutage() {
    RedisRollingWindow w =
        backend(OutagePolicy.THROW)
            .window("local")
            .localFallback(WindowConfig.builder().length(Duration.ofMinutes(1)).build())
            .build();
    for (int i = 1; i <= 4; i++) {
      w.record(i * 10);
    }
    assertThat(w.flush(Duration.ofSeconds(5))).isTrue();
    server.kill();
    w.record(50);
    WindowSnapshot s = w.snapshot();
    assertThat(s.count()).isEqualTo(5);
    assertThat(s.sum()).isEqualTo(150);
    assertThat(w.stats().degradedSnapshots()).isEqualTo(1);
  }
}
