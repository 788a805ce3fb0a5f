package io.ringtail.redis;

/**
 * Thrown by a read or decision that needed Redis when Redis could not answer in time (timeout,
 * connection loss, open circuit breaker) and no fallback was configured for it.
 */
public final class RedisUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RedisUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
