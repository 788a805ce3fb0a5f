package io.ringtail.decision;

import static io.ringtail.internal.Checks.invalid;
import static io.ringtail.internal.Checks.requireBetween;
import static io.ringtail.internal.Checks.requireNonNull;
import static io.ringtail.internal.Checks.requirePositive;

import io.ringtail.TimeSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/**
 * The immutable rule of a {@link SumCap}: the total amount per key within any rolling {@link
 * #window()} stays at or under {@link #cap()}.
 *
 * <p>An amount above the cap is denied whatever its digits ({@link SumDecision#exceedsCap()}),
 * judged in time independent of its exponent. Amounts within the cap are exact decimals with at
 * most {@link #scale()} digits after the point (2, cents, by default): an amount with more digits
 * is rejected, never rounded. Sums are exact, so {@code 3.33 + 3.33 + 3.34} is {@code 10.00}.
 * {@code cap × 10^scale} must fit in 62 bits.
 *
 * <p>Built fluently; {@link Builder#build()} validates and may be called again. Immutable and
 * thread-safe. Defaults: window 60 s, scale 2, at most 1,000 amounts kept per key, the system time
 * source, no listener, a listener cooldown equal to the window, keys forgotten after idling for one
 * window. The cap must be set.
 */
public final class SumCapConfig {
  /** Most decimal places an amount may have. */
  public static final int MAX_SCALE = 9;

  /** Largest number of amounts kept per key. */
  public static final int MAX_ENTRIES_PER_KEY = 1 << 24;

  private static final BigDecimal MAX_CAP_UNITS = BigDecimal.valueOf(Long.MAX_VALUE >> 1);

  private final BigDecimal cap;
  private final int scale;
  private final int maxEntriesPerKey;
  private final DecisionWindowSettings<SumDecision> settings;

  private SumCapConfig(Builder b, DecisionWindowSettings<SumDecision> settings) {
    this.cap = b.cap.setScale(b.scale);
    this.scale = b.scale;
    this.maxEntriesPerKey = b.maxEntriesPerKey;
    this.settings = settings;
  }

  /** A builder; {@link Builder#cap(BigDecimal)} must be set. */
  public static Builder builder() {
    return new Builder(new DecisionWindowSettings.Draft<>());
  }

  /** A builder starting from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder(settings.toDraft());
    b.cap = cap;
    b.scale = scale;
    b.maxEntriesPerKey = maxEntriesPerKey;
    return b;
  }

  /** The most a key's amounts may total within any window, at {@link #scale()}. */
  public BigDecimal cap() {
    return cap;
  }

  /** The rolling window {@code W}. */
  public Duration window() {
    return settings.window();
  }

  /** {@link #window()} in nanoseconds. */
  public long windowNanos() {
    return settings.windowNanos();
  }

  /** Digits after the decimal point every amount, total and cap is expressed with. */
  public int scale() {
    return scale;
  }

  /**
   * The most admitted amounts kept per key. Decisions are exact below it. When a key already holds
   * this many amounts within its window, a newly admitted amount is merged into the key's newest
   * one and timed with the new one: the total stays exact and the cap is never exceeded, but the
   * merged older amount leaves the window later than it otherwise would (decisions err on the side
   * of denying).
   */
  public int maxEntriesPerKey() {
    return maxEntriesPerKey;
  }

  /** The time base: read when an amount carries no time of its own. */
  public TimeSource timeSource() {
    return settings.timeSource();
  }

  /** The listener notified when a key goes from allowed to denied, if any. */
  public Optional<DecisionListener<? super SumDecision>> listener() {
    return settings.listener();
  }

  DecisionWindowSettings<SumDecision> settings() {
    return settings;
  }

  /** The least time between two notifications for one key. */
  public Duration listenerCooldown() {
    return settings.listenerCooldown();
  }

  /**
   * How long a key may go without amounts before it is forgotten; at least the window. When
   * explicit times lag the time source by up to {@code D}, use at least {@code W + D}: a key's
   * history matters until {@code W} after its latest time.
   */
  public Duration idleExpiry() {
    return settings.idleExpiry();
  }

  /** {@link #cap()} in units of {@code 10^-scale}. */
  public long capUnits() {
    return cap.unscaledValue().longValueExact();
  }

  /**
   * {@code amount} in units of {@code 10^-scale}, or {@link Long#MAX_VALUE} for any amount above
   * the cap (such an amount is denied whatever its size or digits). Takes time independent of the
   * amount's exponent: {@code 1E+10000000} and {@code 1E-30000000} are decided at once.
   *
   * @throws NullPointerException if amount is null
   * @throws IllegalArgumentException if amount is negative, or within the cap with more than {@link
   *     #scale()} digits after the point
   */
  public long toUnits(BigDecimal amount) {
    requireNonNull("amount", amount);
    if (amount.signum() < 0) {
      throw invalid("amount", "zero or positive", amount);
    }
    if (amount.signum() == 0) {
      return 0;
    }
    if (amount.compareTo(cap) > 0) { // compares exponents first: O(1) in them
      return Long.MAX_VALUE;
    }
    return unitsWithin(amount, scale, "amount");
  }

  /**
   * {@code amount} at {@link #scale()}, as a decision reports it. Exact: an amount above the cap
   * that has more digits after the point than the scale, or more than 100 before it, is returned as
   * given rather than expanded.
   */
  public BigDecimal atScale(BigDecimal amount) {
    requireNonNull("amount", amount);
    long integerDigits = (long) amount.precision() - amount.scale();
    if (amount.scale() > scale || integerDigits > 100) {
      return amount.compareTo(cap) > 0 ? amount : fromUnits(toUnits(amount));
    }
    return amount.setScale(scale);
  }

  /**
   * A positive {@code value} of at most {@code 2^62} in units of {@code 10^-scale}: its digits
   * after the point beyond {@code scale} must be zeros. A nonzero unscaled value of {@code p}
   * digits ends in fewer than {@code p} zeros, so an excess of {@code p} or more decimals is
   * rejected without dividing by {@code 10^excess}.
   */
  private static long unitsWithin(BigDecimal value, int scale, String name) {
    long excess = (long) value.scale() - scale;
    if (excess < value.precision()) {
      try {
        return value.setScale(scale).unscaledValue().longValueExact();
      } catch (ArithmeticException e) {
        // more decimals than the scale
      }
    }
    throw invalid(name, "a decimal with at most " + scale + " digits after the point", value);
  }

  /** {@code units} of {@code 10^-scale} as an amount. */
  public BigDecimal fromUnits(long units) {
    return BigDecimal.valueOf(units, scale);
  }

  @Override
  public String toString() {
    return "SumCapConfig[cap="
        + cap
        + ", "
        + settings.windowString()
        + ", scale="
        + scale
        + ", maxEntriesPerKey="
        + maxEntriesPerKey
        + ", "
        + settings.listenerString()
        + "]";
  }

  /**
   * Fluent, reusable builder; {@link #build()} validates. The window, time source, listener and
   * their settings are {@link DecisionConfigBuilder}'s.
   */
  public static final class Builder extends DecisionConfigBuilder<SumDecision, Builder> {
    private BigDecimal cap;
    private int scale = 2;
    private int maxEntriesPerKey = 1_000;

    private Builder(DecisionWindowSettings.Draft<SumDecision> common) {
      super(common);
    }

    @Override
    Builder self() {
      return this;
    }

    /**
     * The most a key's amounts may total within any window; positive, at most {@code scale}
     * decimals.
     */
    public Builder cap(BigDecimal cap) {
      this.cap = cap;
      return this;
    }

    /** Digits after the decimal point, 0 to {@link SumCapConfig#MAX_SCALE}; default 2. */
    public Builder scale(int scale) {
      this.scale = scale;
      return this;
    }

    /** The most amounts kept per key, 1 to {@link SumCapConfig#MAX_ENTRIES_PER_KEY}. */
    public Builder maxEntriesPerKey(int maxEntriesPerKey) {
      this.maxEntriesPerKey = maxEntriesPerKey;
      return this;
    }

    /** Validates every value and returns the immutable configuration. */
    public SumCapConfig build() {
      requirePositive("cap", cap);
      requireBetween("scale", scale, 0, MAX_SCALE);
      BigDecimal largest = MAX_CAP_UNITS.movePointLeft(scale);
      if (cap.compareTo(largest) > 0) { // before any rescaling: O(1) in the exponent
        throw invalid("cap", "at most " + largest + " at scale " + scale, cap);
      }
      unitsWithin(cap, scale, "cap");
      DecisionWindowSettings<SumDecision> settings =
          common.build(
              () -> requireBetween("maxEntriesPerKey", maxEntriesPerKey, 1, MAX_ENTRIES_PER_KEY));
      return new SumCapConfig(this, settings);
    }
  }
}
