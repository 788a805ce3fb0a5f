package io.ringtail.decision;

import static io.ringtail.internal.Checks.requireBetween;

import io.ringtail.TimeSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/**
 * The immutable rule of a {@link SumCap}: the total amount per key within any rolling
 * {@link #window()} stays at or under {@link #cap()}.
 *
 * <p>Amounts are exact decimals with at most {@link #scale()} digits after the point (2, cents,
 * by default): an amount with more digits is rejected, never rounded. Sums are exact, so
 * {@code 3.33 + 3.33 + 3.34} is {@code 10.00}. {@code cap × 10^scale} must fit in 62 bits.
 *
 * <p>Built fluently; {@link Builder#build()} validates and may be called again. Immutable and
 * thread-safe. Defaults: window 60 s, scale 2, at most 1,000 amounts kept per key, the system
 * time source, no listener, a listener cooldown equal to the window, keys forgotten after
 * idling for one window. The cap must be set.
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
   * The most admitted amounts kept per key. Decisions are exact below it. When a key already
   * holds this many amounts within its window, a newly admitted amount is merged into the
   * key's newest one and timed with the new one: the total stays exact and the cap is never
   * exceeded, but the merged older amount leaves the window later than it otherwise would
   * (decisions err on the side of denying).
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
   * explicit times lag the time source by up to {@code D}, use at least
   * {@code W + D}: a key's history matters until {@code W} after its latest time.
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
   * the cap (such an amount is denied whatever its size).
   *
   * @throws IllegalArgumentException if amount is null, negative, or has more than
   *     {@link #scale()} digits after the point
   */
  public long toUnits(BigDecimal amount) {
    if (amount == null) {
      throw new IllegalArgumentException("amount must be zero or positive, but was null");
    }
    if (amount.signum() < 0) {
      throw new IllegalArgumentException("amount must be zero or positive, but was " + amount);
    }
    BigDecimal scaled;
    try {
      scaled = amount.setScale(scale);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("amount must have at most " + scale
          + " digits after the decimal point, but was " + amount);
    }
    if (scaled.compareTo(cap) > 0) {
      return Long.MAX_VALUE;
    }
    return scaled.unscaledValue().longValueExact();
  }

  /** {@code units} of {@code 10^-scale} as an amount. */
  public BigDecimal fromUnits(long units) {
    return BigDecimal.valueOf(units, scale);
  }

  @Override
  public String toString() {
    return "SumCapConfig[cap=" + cap + ", " + settings.windowString() + ", scale=" + scale
        + ", maxEntriesPerKey=" + maxEntriesPerKey + ", " + settings.listenerString() + "]";
  }

  /** Fluent, reusable builder; {@link #build()} validates. */
  public static final class Builder {
    private final DecisionWindowSettings.Draft<SumDecision> common;
    private BigDecimal cap;
    private int scale = 2;
    private int maxEntriesPerKey = 1_000;

    private Builder(DecisionWindowSettings.Draft<SumDecision> common) {
      this.common = common;
    }

    /** The most a key's amounts may total within any window; positive, at most {@code scale} decimals. */
    public Builder cap(BigDecimal cap) {
      this.cap = cap;
      return this;
    }

    /** The window length; positive. */
    public Builder window(Duration window) {
      common.window = window;
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

    /** The time base. */
    public Builder timeSource(TimeSource timeSource) {
      common.timeSource = timeSource;
      return this;
    }

    /** Notified once per crossing into denial; {@code null} for none. */
    public Builder listener(DecisionListener<? super SumDecision> listener) {
      common.listener = listener;
      return this;
    }

    /** The least time between two notifications for one key; zero or more, default the window. */
    public Builder listenerCooldown(Duration listenerCooldown) {
      common.listenerCooldown = listenerCooldown;
      return this;
    }

    /**
     * How long an idle key is kept; at least the window. Default: the window, or the listener
     * cooldown if a listener is set and its cooldown is longer (a forgotten key forgets its
     * cooldown too).
     */
    public Builder idleExpiry(Duration idleExpiry) {
      common.idleExpiry = idleExpiry;
      return this;
    }

    /** Validates every value and returns the immutable configuration. */
    public SumCapConfig build() {
      if (cap == null || cap.signum() <= 0) {
        throw new IllegalArgumentException("cap must be positive, but was " + cap);
      }
      requireBetween("scale", scale, 0, MAX_SCALE);
      BigDecimal units;
      try {
        units = cap.setScale(scale).movePointRight(scale);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("cap must have at most " + scale
            + " digits after the decimal point, but was " + cap);
      }
      if (units.compareTo(MAX_CAP_UNITS) > 0) {
        throw new IllegalArgumentException("cap must be at most " + MAX_CAP_UNITS.movePointLeft(scale)
            + " at scale " + scale + ", but was " + cap);
      }
      DecisionWindowSettings<SumDecision> settings = common.build(
          () -> requireBetween("maxEntriesPerKey", maxEntriesPerKey, 1, MAX_ENTRIES_PER_KEY));
      return new SumCapConfig(this, settings);
    }
  }
}
