package io.ringtail.redis;

/**
 * Thrown when Redis refused a call with an error that retrying cannot fix: a missing permission
 * ({@code NOPERM}), a key of the wrong type ({@code WRONGTYPE}), a failing script. The message is
 * Redis's own. Such a refusal is not an outage: no {@link OutagePolicy} answers it, it is not
 * retried and it does not count towards opening the circuit breaker.
 */
public final class RedisRejectedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RedisRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
