package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import io.ringtail.testkit.BadInput;
import io.ringtail.testkit.BadInput.Cases;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Redis module's public builders and methods fed bad input, against a real redis-server: each
 * case works or fails at once naming the parameter (see {@link BadInput}), and nothing rejected
 * reaches Redis.
 */
@ExtendWith(RedisExtension.class)
class RedisBadInputSweepTest {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisProcess redis) {
    client = RedisTestSupport.client();
    connection = RedisTestSupport.connect(client, redis);
    backend =
        RedisBackend.builder(connection)
            .commandTimeout(Duration.ofSeconds(5))
            .outagePolicy(OutagePolicy.THROW)
            .build();
  }

  @AfterAll
  static void close() {
    connection.close();
    RedisTestSupport.shutdown(client);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyBadInput_worksOrFailsAtOnceNamingTheParameter(BadInput.Case c) {
    BadInput.check(c);
  }

  static Stream<BadInput.Case> cases() {
    Cases cases = BadInput.cases();
    backendBuilder(cases);
    windows(cases);
    decisions(cases);
    return cases.stream();
  }

  private static void backendBuilder(Cases cases) {
    cases.rejectsNull(
        "RedisBackend.builder null connection",
        () -> RedisBackend.builder((StatefulRedisConnection<String, String>) null),
        "connection");
    cases.durations(
        "RedisBackend.commandTimeout",
        d -> RedisBackend.builder(connection).commandTimeout(d).build(),
        "commandTimeout",
        false,
        false);
    cases.rejects(
        "RedisBackend.commandTimeout over a minute",
        () -> RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(61)).build(),
        "commandTimeout");
    cases.rejectsNull(
        "RedisBackend.builder null cluster connection",
        () -> RedisBackend.builder((StatefulRedisClusterConnection<String, String>) null),
        "connection");
    cases.durations(
        "RedisBackend.failFastClientOptions",
        RedisBackend::failFastClientOptions,
        "commandTimeout",
        false,
        false);
    cases.durations(
        "RedisBackend.failFastClusterClientOptions",
        RedisBackend::failFastClusterClientOptions,
        "commandTimeout",
        false,
        false);
    cases.rejectsNull(
        "RedisBackend.circuitBreaker null",
        () -> RedisBackend.builder(connection).circuitBreaker(null).build(),
        "circuitBreaker");
    cases.works(
        "RedisBackend.circuitBreaker",
        () ->
            RedisBackend.builder(connection)
                .circuitBreaker(CircuitBreaker.ofDefaults("b"))
                .build());
    cases.rejectsNull(
        "RedisBackend.keyPrefix null",
        () -> RedisBackend.builder(connection).keyPrefix(null).build(),
        "keyPrefix");
    for (String prefix : new String[] {"", "a{b", "}", "x".repeat(65)}) {
      String shown = prefix.length() > 8 ? prefix.length() + " chars" : "\"" + prefix + "\"";
      cases.rejects(
          "RedisBackend.keyPrefix " + shown,
          () -> RedisBackend.builder(connection).keyPrefix(prefix).build(),
          "keyPrefix");
    }
    cases.rejectsNull(
        "RedisBackend.outagePolicy null",
        () -> RedisBackend.builder(connection).outagePolicy(null).build(),
        "outagePolicy");
    cases.durations(
        "RedisBackend.outageRetryAfter",
        d -> RedisBackend.builder(connection).outageRetryAfter(d).build(),
        "outageRetryAfter",
        false,
        true);
    for (int capacity : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 10_000_001}) {
      cases.rejects(
          "RedisBackend.eventBufferCapacity " + capacity,
          () -> RedisBackend.builder(connection).eventBufferCapacity(capacity).build(),
          "eventBufferCapacity");
    }
    cases.works(
        "RedisBackend.eventBufferCapacity 0",
        () -> RedisBackend.builder(connection).eventBufferCapacity(0).build());
    for (int replicas : new int[] {-1, 17, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "RedisBackend.confirmingReplicas " + replicas,
          () -> RedisBackend.builder(connection).confirmingReplicas(replicas).build(),
          "confirmingReplicas");
    }
    cases.works(
        "RedisBackend.confirmingReplicas 16",
        () -> RedisBackend.builder(connection).confirmingReplicas(16).build());
  }

  private static void windows(Cases cases) {
    cases.rejectsNull("window name null", () -> backend.window(null).build(), "name");
    cases.rejects("window name empty", () -> backend.window("").build(), "name");
    cases.rejects("window name 1025 chars", () -> backend.window("n".repeat(1025)).build(), "name");
    cases.durations(
        "window length", d -> backend.window("w").length(d).build(), "length", false, false);
    cases.rejects(
        "window length 1.5 ms",
        () -> backend.window("w").length(Duration.ofNanos(1_500_500)).build(),
        "length");
    for (int max : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "window maxSamples " + max,
          () -> backend.window("w").maxSamples(max).build(),
          "maxSamples");
    }
    cases.rejectsNull(
        "window timeSource null", () -> backend.window("w").timeSource(null).build(), "timeSource");
    cases.durations(
        "window maxClockSkew",
        d -> backend.window("w").timeSource(new ManualTimeSource()).maxClockSkew(d).build(),
        "maxClockSkew",
        true,
        false);
    cases.rejects(
        "window maxClockSkew over an hour",
        () ->
            backend
                .window("w")
                .timeSource(new ManualTimeSource())
                .maxClockSkew(Duration.ofMinutes(61))
                .build(),
        "maxClockSkew");
    cases.rejects(
        "window maxClockSkew without timeSource",
        () -> backend.window("w").maxClockSkew(Duration.ofSeconds(1)).build(),
        "maxClockSkew");
    cases.rejectsNull(
        "window percentiles null",
        () -> backend.window("w").percentiles((double[]) null).build(),
        "percentiles");
    for (double p : new double[] {Double.NaN, Double.POSITIVE_INFINITY, -1, 100.5}) {
      cases.rejects(
          "window percentiles " + p,
          () -> backend.window("w").percentiles(50, p).build(),
          "percentile");
    }
    cases.rejects(
        "window percentiles 65 values",
        () -> backend.window("w").percentiles(new double[65]).build(),
        "percentiles");
    cases.rejectsNull(
        "window localFallback null",
        () -> backend.window("w").localFallback(null).build(),
        "localFallback");
    for (int n : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "window bufferCapacity " + n,
          () -> backend.window("w").bufferCapacity(n).build(),
          "bufferCapacity");
      cases.rejects(
          "window maxInFlight " + n,
          () -> backend.window("w").maxInFlight(n).build(),
          "maxInFlight");
    }
    cases.rejectsNull("window record null eventId", () -> window().record(null, 1), "eventId");
    cases.rejects("window record empty eventId", () -> window().record("", 1), "eventId");
    cases.rejects(
        "window record 257-char eventId", () -> window().record("e".repeat(257), 1), "eventId");
    cases.works(
        "window record extremes (counted as rejected)",
        () -> {
          RedisRollingWindow w = window();
          w.record(Long.MIN_VALUE);
          w.record(-1);
          w.record(Long.MAX_VALUE);
          w.recordElapsedSince(Long.MIN_VALUE);
          assertThat(w.flush(Duration.ofSeconds(1))).isTrue();
          assertThat(w.snapshot().rejected()).isGreaterThanOrEqualTo(2);
        });
    cases.works(
        "client-timed window at time extremes",
        () -> {
          RedisRollingWindow w =
              backend
                  .window(RedisTestSupport.uniqueName("ct"))
                  .timeSource(new ManualTimeSource())
                  .build();
          w.recordAt(1, Long.MIN_VALUE);
          w.recordAt(1, Long.MAX_VALUE);
          assertThat(w.flush(Duration.ofSeconds(1))).isTrue();
          w.snapshot();
        });
    cases.rejectsNull(
        "window snapshot null percentiles",
        () -> window().snapshot((double[]) null),
        "percentiles");
    for (double p : new double[] {Double.NaN, Double.NEGATIVE_INFINITY, 100.5}) {
      cases.rejects("window snapshot " + p, () -> window().snapshot(p), "percentile");
      cases.rejects(
          "window snapshot valueAtPercentile " + p,
          () -> window().snapshot().valueAtPercentile(p),
          "percentile");
    }
    cases.durations("window flush", d -> window().flush(d), "timeout", false, true);
  }

  private static void decisions(Cases cases) {
    RateLimitConfig rate =
        RateLimitConfig.builder().limit(2).timeSource(new ManualTimeSource()).build();
    ThresholdConfig threshold =
        ThresholdConfig.builder().threshold(2).timeSource(new ManualTimeSource()).build();
    SumCapConfig sum =
        SumCapConfig.builder().cap(BigDecimal.TEN).timeSource(new ManualTimeSource()).build();
    cases.rejectsNull("rateLimiter name null", () -> backend.rateLimiter(null, rate), "name");
    cases.rejects("rateLimiter name empty", () -> backend.rateLimiter("", rate), "name");
    cases.rejects("sumCap name 257 chars", () -> backend.sumCap("n".repeat(257), sum), "name");
    cases.rejectsNull(
        "thresholdDetector config null", () -> backend.thresholdDetector("t", null), "config");
    cases.rejectsNull("rateLimiter config null", () -> backend.rateLimiter("r", null), "config");
    cases.rejectsNull("sumCap config null", () -> backend.sumCap("s", null), "config");
    cases.rejectsNull(
        "tryAcquire null key", () -> backend.rateLimiter("r", rate).tryAcquire(null), "key");
    cases.rejects(
        "tryAcquire empty key", () -> backend.rateLimiter("r", rate).tryAcquire(""), "key");
    cases.rejectsNull(
        "threshold record null key",
        () -> backend.thresholdDetector("t", threshold).record(null, "e"),
        "key");
    cases.rejectsNull(
        "threshold record null eventId",
        () -> backend.thresholdDetector("t", threshold).record("k", null),
        "eventId");
    cases.rejects(
        "threshold record empty eventId",
        () -> backend.thresholdDetector("t", threshold).record("k", ""),
        "eventId");
    cases.rejectsNull(
        "tryAdd null key", () -> backend.sumCap("s", sum).tryAdd(null, BigDecimal.ONE), "key");
    cases.rejectsNull(
        "tryAdd null amount", () -> backend.sumCap("s", sum).tryAdd("k", null), "amount");
    for (String amount : new String[] {"-1", "1E-30000000", "0.001", "-1E+10000000"}) {
      cases.rejects(
          "tryAdd " + amount,
          () -> backend.sumCap("s", sum).tryAdd("k", new BigDecimal(amount)),
          "amount");
    }
    for (String amount : new String[] {"1E+10000000", "1E+2147483647", "10.000000001"}) {
      cases.works(
          "tryAdd " + amount + " exceeds the cap",
          () -> {
            SumDecision d =
                backend
                    .sumCap("s", sum)
                    .tryAdd(RedisTestSupport.uniqueName("k"), new BigDecimal(amount));
            assertThat(d.exceedsCap()).isTrue();
            assertThat(d.allowed()).isFalse();
          });
    }
    for (long t : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}) {
      cases.works(
          "decisions at time " + t,
          () -> {
            String key = RedisTestSupport.uniqueName("k");
            backend.rateLimiter("r", rate).tryAcquire(key, t);
            backend.thresholdDetector("t", threshold).record(key, "e", t);
            backend.sumCap("s", sum).tryAdd(key, BigDecimal.ONE, t);
          });
    }
    cases.works(
        "decisions idle for 292 years",
        () -> {
          String key = RedisTestSupport.uniqueName("k");
          Duration longest = BadInput.LONGEST;
          assertThat(
                  backend
                      .rateLimiter(
                          "r",
                          rate.toBuilder().idleExpiry(longest).listenerCooldown(longest).build())
                      .tryAcquire(key)
                      .allowed())
              .isTrue();
          assertThat(
                  backend
                      .thresholdDetector("t", threshold.toBuilder().idleExpiry(longest).build())
                      .record(key, "e")
                      .count())
              .isEqualTo(1);
          assertThat(
                  backend
                      .sumCap("s", sum.toBuilder().idleExpiry(longest).build())
                      .tryAdd(key, BigDecimal.ONE)
                      .allowed())
              .isTrue();
          assertThat(
                  connection
                      .sync()
                      .pttl(
                          DecisionKeys.of(
                              backend.keyPrefix, "r", key, RedisRateLimiter.KEY_SUFFIXES)[0]))
              .as("the idle expiry became a positive TTL")
              .isPositive();
          assertThat(connection.sync().pttl(DecisionKeys.of(backend.keyPrefix, "t", key, "te")[0]))
              .as("the threshold detector's too")
              .isPositive();
        });
    cases.works(
        "local fallback config",
        () ->
            backend
                .window(RedisTestSupport.uniqueName("lf"))
                .localFallback(WindowConfig.defaults())
                .build()
                .record(5));
  }

  private static RedisRollingWindow window() {
    return backend.window(RedisTestSupport.uniqueName("w")).build();
  }
}
