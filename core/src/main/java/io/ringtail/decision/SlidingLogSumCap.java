package io.ringtail.decision;

import io.ringtail.internal.Checks;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/**
 * The in-process {@link SumCap}: per key, a ring of admitted (time, amount) pairs, amounts in units
 * of {@code 10^-scale} as {@code long}s, and their running total.
 *
 * <p>A decision evicts expired pairs from the head (subtracting them from the total), compares
 * total plus amount with the cap and appends: O(1) amortised when admitted. A denial additionally
 * walks the ring from the oldest pair to find its retry-after: O(k) for the k pairs held. Memory:
 * 16 bytes per held pair, at most {@code maxEntriesPerKey} pairs; the ring starts at {@value
 * #INITIAL_CAPACITY} pairs and shrinks back when the window empties.
 */
final class SlidingLogSumCap extends KeyedDecider<SlidingLogSumCap.Ledger, BigDecimal, SumDecision>
    implements SumCap {
  static final int INITIAL_CAPACITY = 4;

  private final SumCapConfig config;
  private final long capUnits;
  private final int maxEntries;

  SlidingLogSumCap(SumCapConfig config, long maximumKeys) {
    super(
        config.settings(),
        maximumKeys,
        k -> new Ledger(Math.min(INITIAL_CAPACITY, config.maxEntriesPerKey())));
    this.config = config;
    this.capUnits = config.capUnits();
    this.maxEntries = config.maxEntriesPerKey();
  }

  @Override
  boolean denies(SumDecision decision) {
    return !decision.allowed();
  }

  @Override
  public SumDecision tryAdd(String key, BigDecimal amount, long timeNanos) {
    Checks.requireNonEmpty("key", key);
    long units = config.toUnits(amount);
    return decide(key, config.atScale(amount), units, timeNanos);
  }

  /** Decides {@code units} (the amount {@code decided}, or above the cap) at {@code timeNanos}. */
  @Override
  SumDecision decideLocked(Ledger ledger, BigDecimal decided, long units, long timeNanos) {
    boolean exceeds = units > capUnits;
    long t = ledger.advanceTo(timeNanos);
    ledger.evictUpTo(t - window);
    boolean allowed = !exceeds && ledger.total + units <= capUnits;
    if (allowed && units > 0) {
      ledger.append(t, units, maxEntries);
    }
    Optional<Duration> retryAfter =
        exceeds
            ? Optional.empty()
            : Optional.of(
                allowed
                    ? Duration.ZERO
                    : Duration.ofNanos(ledger.waitFor(units, capUnits) + window - t));
    Duration freesIn =
        ledger.size == 0 ? Duration.ZERO : Duration.ofNanos(ledger.oldestTime() + window - t);
    SumDecision decision =
        new SumDecision(
            allowed,
            exceeds,
            decided,
            config.fromUnits(ledger.total),
            config.cap(),
            retryAfter,
            freesIn);
    trackDenial(ledger, !allowed, t);
    return decision;
  }

  @Override
  public SumCapConfig config() {
    return config;
  }

  /** A ring of (time, units) pairs in time order and their total; guarded by its monitor. */
  static final class Ledger extends MonotonicKeyState {
    long[] times;
    long[] units;
    int head;
    int size;
    long total;

    Ledger(int capacity) {
      times = new long[capacity];
      units = new long[capacity];
    }

    void evictUpTo(long cutoff) {
      while (size > 0 && times[head] - cutoff <= 0) {
        total -= units[head];
        head = head + 1 == times.length ? 0 : head + 1;
        size--;
      }
      if (size == 0 && times.length > INITIAL_CAPACITY) {
        times = new long[INITIAL_CAPACITY];
        units = new long[INITIAL_CAPACITY];
        head = 0;
      }
    }

    void append(long t, long amount, int max) {
      total += amount;
      if (size == max) {
        int newest = index(size - 1);
        times[newest] = t;
        units[newest] += amount;
        return;
      }
      if (size == times.length) {
        int capacity = Math.min(max, times.length * 2);
        long[] grownTimes = new long[capacity];
        long[] grownUnits = new long[capacity];
        for (int i = 0; i < size; i++) {
          grownTimes[i] = times[index(i)];
          grownUnits[i] = units[index(i)];
        }
        times = grownTimes;
        units = grownUnits;
        head = 0;
      }
      int tail = index(size);
      times[tail] = t;
      units[tail] = amount;
      size++;
    }

    /** The time of the held pair whose leaving first lets {@code amount} fit under {@code cap}. */
    long waitFor(long amount, long cap) {
      long left = total;
      for (int i = 0; i < size; i++) {
        int at = index(i);
        left -= units[at];
        if (left + amount <= cap) {
          return times[at];
        }
      }
      throw new IllegalStateException("an amount within the cap always fits an empty window");
    }

    long oldestTime() {
      return times[head];
    }

    private int index(int i) {
      int at = head + i;
      return at >= times.length ? at - times.length : at;
    }
  }
}
