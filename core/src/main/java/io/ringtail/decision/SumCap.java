package io.ringtail.decision;

import io.ringtail.internal.Checks;
import java.math.BigDecimal;

/**
 * Caps the total amount per key within any rolling window: "at most 10.00 EUR per user in any
 * sliding week".
 *
 * <h2>Semantics</h2>
 *
 * An amount {@code a} for a key at time {@code t} is admitted iff the key's admitted amounts in
 * {@code (t - W, t]} plus {@code a} total at most the cap; an admitted amount is recorded at {@code
 * t}, a denied one is not recorded. So the admitted total in any interval of length {@code W} never
 * exceeds the cap. A zero amount is always admitted and records nothing.
 *
 * <p>An amount larger than the cap on its own is <b>denied</b>, always, with {@link
 * SumDecision#exceedsCap()} set and no retry-after: admitting it would break the cap that a
 * regulation or budget imposes, and no wait would ever make it fit. Callers that want to admit it
 * partially can split it and submit {@code remaining()}.
 *
 * <p>Time never runs backwards for a key: an amount timed before the latest amount already decided
 * for its key is decided, and recorded, as of that latest time.
 *
 * <p>Thread-safe; every call is atomic per key (see the package documentation).
 */
public interface SumCap {

  /**
   * An in-process cap holding at most 1,000,000 keys (see {@link #inProcess(SumCapConfig, long)}).
   */
  static SumCap inProcess(SumCapConfig config) {
    return inProcess(config, KeyedStates.DEFAULT_MAXIMUM_KEYS);
  }

  /**
   * An in-process cap holding at most {@code maximumKeys} keys. Past that bound the keys least
   * likely to be used again are forgotten (Caffeine's size eviction), as is any key idle for longer
   * than {@link SumCapConfig#idleExpiry()} on the time source; there is no background thread. A
   * forgotten key starts afresh.
   *
   * <p>Memory per key: about 150 bytes (cache entry and state), the key string, and 16 bytes per
   * amount in its window (at most {@code maxEntriesPerKey}): about 300 bytes for a key with 3
   * amounts in its window (measured by {@code MillionKeysFootprintTest}).
   *
   * @throws NullPointerException if config is null
   * @throws IllegalArgumentException if maximumKeys is not positive
   */
  static SumCap inProcess(SumCapConfig config, long maximumKeys) {
    return new SlidingLogSumCap(Checks.requireNonNull("config", config), maximumKeys);
  }

  /** Decides an amount added now, on the configuration's time source. */
  default SumDecision tryAdd(String key, BigDecimal amount) {
    return tryAdd(key, amount, config().timeSource().nanoTime());
  }

  /**
   * Decides an amount added at {@code timeNanos} on the configuration's time base.
   *
   * @throws NullPointerException if the key or the amount is null
   * @throws IllegalArgumentException if the key is empty, or the amount is negative or, within the
   *     cap, has more digits after the point than the configured scale; nothing is recorded
   */
  SumDecision tryAdd(String key, BigDecimal amount, long timeNanos);

  /** The rule this cap applies. */
  SumCapConfig config();
}
