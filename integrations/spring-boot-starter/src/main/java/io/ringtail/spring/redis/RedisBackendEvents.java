package io.ringtail.spring.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.ringtail.redis.RedisBackend;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the circuit breaker of a {@link RedisBackend} has seen since the context started: failed
 * calls, calls it refused while open, the last failure and the last state change. Feeds the
 * backend's meters and its health. Subscribes to the breaker's events once; thread-safe.
 */
public final class RedisBackendEvents {
  private final RedisBackend backend;
  private final LongAdder failedCalls = new LongAdder();
  private final LongAdder refusedCalls = new LongAdder();
  private volatile String lastFailure;
  private volatile Instant lastFailureAt;
  private volatile String lastTransition;
  private volatile Instant lastTransitionAt;

  /** Starts listening to {@code backend}'s breaker. */
  public RedisBackendEvents(RedisBackend backend) {
    this.backend = Objects.requireNonNull(backend, "backend");
    CircuitBreaker.EventPublisher events = backend.circuitBreaker().getEventPublisher();
    events.onError(
        e -> {
          failedCalls.increment();
          Throwable t = e.getThrowable();
          lastFailure =
              t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
          lastFailureAt = Instant.now();
        });
    events.onCallNotPermitted(e -> refusedCalls.increment());
    events.onStateTransition(
        e -> {
          lastTransition = e.getStateTransition().toString();
          lastTransitionAt = Instant.now();
        });
  }

  /** The backend listened to. */
  public RedisBackend backend() {
    return backend;
  }

  /** Calls to Redis that failed or timed out. */
  public long failedCalls() {
    return failedCalls.sum();
  }

  /** Calls the open breaker refused without trying Redis. */
  public long refusedCalls() {
    return refusedCalls.sum();
  }

  /** The last failure, as its type and message, or null if none. */
  public String lastFailure() {
    return lastFailure;
  }

  /** When the last failure happened, or null. */
  public Instant lastFailureAt() {
    return lastFailureAt;
  }

  /** The breaker's last state change (like {@code CLOSED_TO_OPEN}), or null. */
  public String lastTransition() {
    return lastTransition;
  }

  /** When the breaker last changed state, or null. */
  public Instant lastTransitionAt() {
    return lastTransitionAt;
  }
}
