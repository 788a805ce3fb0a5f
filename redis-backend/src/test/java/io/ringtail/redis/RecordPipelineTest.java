package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.ringtail.TimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The record pipeline's flush against a real server that stops answering mid-replay. */
class RecordPipelineTest extends DedicatedRedisTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  RecordPipelineTest() {
    super(TIMEOUT);
  }

  @Test
  void flush_whileABackgroundReplayAwaitsItsReply_doesNotReportNothingPending() {
    CircuitBreaker neverOpens =
        CircuitBreaker.of(
            "never-opens",
            CircuitBreakerConfig.custom().minimumNumberOfCalls(Integer.MAX_VALUE).build());
    RedisBackend backend =
        RedisBackend.builder(connection).commandTimeout(TIMEOUT).circuitBreaker(neverOpens).build();
    TimeSource clock = TimeSource.system();
    WindowCounters counters = new WindowCounters("replay", 1_000, clock);
    WindowProtocol protocol =
        new WindowProtocol(
            backend.runner, "ringtail", "replay", Duration.ofMinutes(5), 1_000, null);
    ServerOffset serverTime = new ServerOffset(clock, WallClock.INSTANCE);
    SampleStamper stamper = new SampleStamper(null, serverTime);
    RecordPipeline pipeline =
        new RecordPipeline(protocol, null, serverTime, counters, 1_000, 1_000, TIMEOUT.toNanos());

    server.pause();
    try {
      for (int i = 0; i < 50; i++) {
        pipeline.submit(stamper.stamp(i, null, 0L));
      }
      RedisTestSupport.await(
          Duration.ofSeconds(30), "the failed batches buffered", () -> pipeline.buffered() == 50);
      pipeline.replayIfPending();
      assertThat(pipeline.buffered()).as("the replayed batch left the buffer").isZero();
      long deadline = clock.nanoTime() + Duration.ofMillis(100).toNanos();
      assertThat(pipeline.flush(deadline, clock))
          .as("the replayed batch is pending until Redis answers it")
          .isFalse();
    } finally {
      server.resume();
    }
    assertThat(pipeline.flush(clock.nanoTime() + Duration.ofSeconds(20).toNanos(), clock)).isTrue();
    assertThat(counters.stats(0, 0).stored()).isEqualTo(50);
  }
}
