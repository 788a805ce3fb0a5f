package io.ringtail.decision;

import io.ringtail.internal.Checks;
import java.time.Duration;

/**
 * What a {@link RateLimiter} decided about one request.
 *
 * <p>Immutable and thread-safe.
 *
 * @param allowed whether the request was admitted (and recorded)
 * @param remaining requests the key may still make now, after this decision
 * @param limit the configured limit
 * @param retryAfter how long from this decision's time until the key's next request would be
 *     admitted: zero when {@code remaining > 0}, else the time until the oldest admitted request in
 *     the window leaves it ({@code oldest + window - now}), always positive then
 */
public record RateDecision(boolean allowed, int remaining, int limit, Duration retryAfter) {

  /** Validates the components. */
  public RateDecision {
    Checks.requirePositive("limit", limit);
    Checks.requireBetween("remaining", remaining, 0, limit);
    Checks.requireNonNegativeNanos("retryAfter", retryAfter);
    if ((remaining > 0) != retryAfter.isZero()) {
      throw Checks.invalid(
          "retryAfter", "zero exactly when requests remain (" + remaining + " remain)", retryAfter);
    }
  }
}
