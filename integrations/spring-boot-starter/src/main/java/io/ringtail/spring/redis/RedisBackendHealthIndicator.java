package io.ringtail.spring.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The Redis backend's health, from its circuit breaker and without a Redis call: DOWN while the
 * breaker is open (Ringtail is not calling Redis: decisions are answered by the outage policy,
 * samples buffered), with why (the breaker's failure rate, the last failure and when the breaker
 * opened); UP otherwise, with the breaker's state. Spring Boot 4 health API.
 */
public final class RedisBackendHealthIndicator implements HealthIndicator {
  private final RedisBackendEvents events;

  /** The health of {@code events}' backend. */
  public RedisBackendHealthIndicator(RedisBackendEvents events) {
    this.events = Objects.requireNonNull(events, "events");
  }

  @Override
  public Health health() {
    CircuitBreaker breaker = events.backend().circuitBreaker();
    CircuitBreaker.State state = breaker.getState();
    boolean open = state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.FORCED_OPEN;
    Health.Builder health = open ? Health.down() : Health.up();
    health
        .withDetail("breaker", state.name())
        .withDetail("failureRate", breaker.getMetrics().getFailureRate())
        .withDetail("failedCalls", events.failedCalls())
        .withDetail("refusedCalls", events.refusedCalls());
    if (open) {
      health.withDetail(
          "reason",
          "circuit breaker "
              + state
              + " since "
              + events.lastTransitionAt()
              + ": "
              + Math.round(breaker.getMetrics().getFailureRate())
              + " % of the last calls failed; decisions are answered by the outage policy");
    }
    if (events.lastFailure() != null) {
      health
          .withDetail("lastFailure", events.lastFailure())
          .withDetail("lastFailureAt", String.valueOf(events.lastFailureAt()));
    }
    return health.build();
  }
}
