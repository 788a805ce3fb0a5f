package io.ringtail.decision;

import io.ringtail.internal.Checks;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/**
 * What a {@link SumCap} decided about one amount.
 *
 * <p>Immutable and thread-safe. Every amount is at the configuration's scale, except an amount
 * above the cap that {@link SumCapConfig#atScale} reports as given.
 *
 * @param allowed whether the amount was admitted (and recorded)
 * @param exceedsCap whether the amount alone is larger than the cap, so can never be admitted
 * @param amount the amount decided
 * @param total what the key's admitted amounts within the window total after this decision
 * @param cap the configured cap
 * @param retryAfter how long from this decision's time until this same amount would be admitted if
 *     nothing else were added: zero when allowed, empty when it exceeds the cap
 * @param freesIn how long until capacity next frees up, that is until the oldest amount in the
 *     key's window leaves it; zero when the window holds nothing
 */
public record SumDecision(
    boolean allowed,
    boolean exceedsCap,
    BigDecimal amount,
    BigDecimal total,
    BigDecimal cap,
    Optional<Duration> retryAfter,
    Duration freesIn) {

  /** Validates the components. */
  public SumDecision {
    Checks.requireNonNull("amount", amount);
    Checks.requireNonNull("total", total);
    Checks.requireNonNull("cap", cap);
    Checks.requireNonNull("retryAfter", retryAfter);
    Checks.requireNonNegativeNanos("freesIn", freesIn);
    if (exceedsCap != (amount.compareTo(cap) > 0)) {
      throw Checks.invalid(
          "exceedsCap", "whether amount " + amount + " is above cap " + cap, exceedsCap);
    }
    if (allowed && (exceedsCap || !retryAfter.equals(Optional.of(Duration.ZERO)))) {
      throw Checks.invalid("retryAfter", "zero in an allowed decision", retryAfter);
    }
    if (exceedsCap == retryAfter.isPresent()) {
      throw Checks.invalid(
          "retryAfter", "empty exactly when the amount exceeds the cap", retryAfter);
    }
    if (!allowed && !exceedsCap && (retryAfter.get().isZero() || retryAfter.get().isNegative())) {
      throw Checks.invalid(
          "retryAfter", "positive when an amount within the cap is denied", retryAfter);
    }
  }

  /** How much more the key may add now: {@code cap - total}. */
  public BigDecimal remaining() {
    return cap.subtract(total);
  }
}
