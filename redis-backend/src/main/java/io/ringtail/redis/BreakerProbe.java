package io.ringtail.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.TimeSource;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The backend's circuit breaker: its default settings ({@link #defaultBreaker}), and a probe that
 * lets it close as soon as Redis answers again ({@link #probeIfOpen}), rather than after its whole
 * open wait. Thread-safe.
 */
final class BreakerProbe {
  /** Least time between two probes of an open breaker's connection. */
  static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final RedisClusterAsyncCommands<String, String> commands;
  private final CircuitBreaker breaker;
  private final long timeoutNanos;
  private final TimeSource clock = TimeSource.system();
  private final AtomicBoolean probing = new AtomicBoolean();
  private final AtomicLong nextProbe = new AtomicLong(clock.nanoTime());

  /**
   * The breaker a backend gets unless it is given one: it opens when half of the last 20 calls (at
   * least 5) failed, waits 1 s, then lets 2 calls try; a call that takes the whole {@code timeout}
   * counts as slow.
   */
  static CircuitBreaker defaultBreaker(Duration timeout) {
    return CircuitBreaker.of(
        "ringtail-redis",
        CircuitBreakerConfig.custom()
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
            .slidingWindowSize(20)
            .minimumNumberOfCalls(5)
            .failureRateThreshold(50)
            .waitDurationInOpenState(Duration.ofSeconds(1))
            .permittedNumberOfCallsInHalfOpenState(2)
            .slowCallDurationThreshold(timeout)
            .writableStackTraceEnabled(false)
            .build());
  }

  BreakerProbe(
      RedisClusterAsyncCommands<String, String> commands,
      CircuitBreaker breaker,
      long timeoutNanos) {
    this.commands = commands;
    this.breaker = breaker;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * While the breaker is open, a call it refuses sends a PING (at most one at a time, one per 100
   * ms, bounded by the timeout): if Redis answers, the connection is live again (reconnected, or
   * following a failover) and the breaker goes half-open at once instead of waiting out its open
   * state, so calls are not held back after Redis is back.
   */
  void probeIfOpen() {
    long now = clock.nanoTime();
    long next = nextProbe.get();
    if (breaker.getState() != CircuitBreaker.State.OPEN
        || now - next < 0
        || !nextProbe.compareAndSet(next, now + PROBE_INTERVAL_NANOS)
        || !probing.compareAndSet(false, true)) {
      return;
    }
    CompletableFuture<String> ping;
    try {
      ping =
          commands
              .dispatch(
                  CommandType.PING,
                  new StatusOutput<>(StringCodec.UTF8),
                  new CommandArgs<>(StringCodec.UTF8))
              .toCompletableFuture()
              .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException e) {
      ping = CompletableFuture.failedFuture(e);
    }
    ping.whenComplete(
        (pong, error) -> {
          probing.set(false);
          if (error == null && breaker.getState() == CircuitBreaker.State.OPEN) {
            try {
              breaker.transitionToHalfOpenState();
            } catch (IllegalStateException raced) {
              // another thread moved the breaker on meanwhile
            }
          }
        });
  }
}
