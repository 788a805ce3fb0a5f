package io.ringtail;

import java.util.Arrays;

/**
 * The striped record path both in-process recorders share ({@link StripedWindow}, {@link
 * BucketRecorder}): padded stripes of two accumulators each, one a thread picks by its {@link
 * Probe}, written under the stripe's {@code WriterReaderPhaser} and drained by flipping it, as in
 * HdrHistogram's {@code Recorder}; more stripes under sustained contention, up to a bound.
 *
 * <p>With {@code limited}, each undrained accumulator holds a share of the owner's sum headroom
 * ({@code Long.MAX_VALUE} less the sum the owner holds), handed out at each drain, and accepts a
 * sample only within it, so the owner's sum never wraps; without, every accumulator may take up to
 * {@code Long.MAX_VALUE} (an owner that hands its buckets out long before).
 *
 * <p>{@link #record} and {@link #reject} are lock-free and called by any thread; every other method
 * runs under the owner's lock.
 */
final class StripedRecorder {
  /** Contended records within one bucket that make the recorder add stripes. */
  static final int GROW_AFTER_CONTENDED = 64;

  /**
   * The most stripes a recorder grows to by default: the processors, rounded up to a power of two.
   */
  static final int GROWTH_BOUND =
      Math.min(
          WindowConfig.MAX_STRIPES,
          Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 2 - 1)));

  private final BucketLayout layout;
  private final int maxStripes;
  private final boolean limited;

  /** Whether the stripes' accumulators are {@linkplain Accumulator#compact compact}. */
  private final boolean compact;

  /** Grown (under the lock) by copying; a stripe once added is never removed. */
  private volatile Stripe[] stripes;

  /** Contended records, halved at each rotation; counted racily, a hint only. */
  private int contended;

  /** Sum of the limits of the stripes' undrained accumulators; guarded by the owner's lock. */
  private long granted;

  /**
   * {@code initial} stripes (a power of two), growing to {@code maxStripes}; with {@code limited},
   * their first shares come from {@code headroom}.
   */
  StripedRecorder(
      BucketLayout layout, int initial, int maxStripes, boolean limited, long headroom) {
    this(layout, initial, maxStripes, limited, headroom, false);
  }

  private StripedRecorder(
      BucketLayout layout,
      int initial,
      int maxStripes,
      boolean limited,
      long headroom,
      boolean compact) {
    this.layout = layout;
    this.maxStripes = Math.max(initial, maxStripes);
    this.limited = limited;
    this.compact = compact;
    Stripe[] table = new Stripe[initial];
    for (int i = 0; i < table.length; i++) {
      table[i] = newStripe(table.length, headroom);
    }
    this.stripes = table;
  }

  /**
   * A recorder without shares whose stripes hold {@linkplain Accumulator#compact compact}
   * accumulators, which their owner {@linkplain Accumulator#refit refits} after reading each out.
   */
  static StripedRecorder compact(BucketLayout layout, int initial, int maxStripes) {
    return new StripedRecorder(layout, initial, maxStripes, false, Long.MAX_VALUE, true);
  }

  /**
   * Records into the calling thread's stripe: an in-range value into its slot, else a rejection.
   * Returns {@link Accumulator#OVER_LIMIT} when the stripe's share of the headroom cannot take the
   * value (nothing recorded), else {@link Accumulator#ADDED}. A thread that met another on its
   * stripe moves to another for its next record.
   */
  int record(long value, boolean inRange) {
    Probe probe = Probe.current();
    Stripe[] table = stripes;
    Stripe stripe = table[probe.hash & (table.length - 1)];
    int outcome;
    long ticket = stripe.phaser.writerCriticalSectionEnter();
    try {
      Accumulator active = stripe.active;
      if (inRange) {
        outcome = active.add(layout.indexOf(value), value);
      } else {
        active.reject();
        outcome = Accumulator.ADDED;
      }
    } finally {
      stripe.phaser.writerCriticalSectionExit(ticket);
    }
    if (outcome == Accumulator.CONTENDED) {
      probe.rehash();
      contended++;
      return Accumulator.ADDED;
    }
    return outcome;
  }

  /** Counts a rejected sample in the calling thread's stripe. */
  void reject() {
    record(0, false);
  }

  /**
   * Moves everything the stripes hold into {@code live}. With {@code withShares}, each stripe's
   * fresh accumulator gets a share of the remaining headroom ({@code base - live.sum}, less what is
   * still granted), else none; the drained one's share is released. So the owner's sum plus every
   * share still out never passes {@code base}.
   */
  void drainInto(Accumulator live, long base, boolean withShares) {
    for (Stripe stripe : stripes) {
      Accumulator fresh = stripe.inactive;
      long share = !limited ? Long.MAX_VALUE : withShares ? share(base - live.sum) : 0;
      fresh.limit = share;
      granted += limited ? share : 0;
      stripe.phaser.readerLock();
      try {
        Accumulator drained = stripe.active;
        stripe.active = fresh;
        stripe.inactive = drained;
        stripe.phaser.flipPhase();
        live.takeAll(drained, layout);
        granted -= limited ? drained.limit : 0;
      } finally {
        stripe.phaser.readerUnlock();
      }
    }
  }

  /**
   * Flips every stripe without draining it: what was recorded so far waits in the inactive
   * accumulators ({@link #inactive}) until the owner reads them out, and the flip costs no pass
   * over the slots. Only for a recorder without shares, whose inactive accumulators are empty.
   */
  void flip() {
    for (Stripe stripe : stripes) {
      stripe.phaser.readerLock();
      try {
        Accumulator recorded = stripe.active;
        stripe.active = stripe.inactive;
        stripe.inactive = recorded;
        stripe.phaser.flipPhase();
      } finally {
        stripe.phaser.readerUnlock();
      }
    }
  }

  /**
   * Stripe {@code i}'s inactive accumulator: after a {@link #flip}, what was recorded before it;
   * whoever reads it out clears it before the next flip.
   */
  Accumulator inactive(int i) {
    return stripes[i].inactive;
  }

  /**
   * Hands each stripe's active accumulator a share of {@code headroom} (after a share-less drain).
   */
  void grantShares(long headroom) {
    for (Stripe stripe : stripes) {
      long share = share(headroom);
      stripe.active.raiseLimit(share);
      granted += share;
    }
  }

  /**
   * Doubles the stripes, up to the bound, when enough records met another thread on their stripe
   * recently (the count halves at each rotation, so only a sustained rate of collisions adds
   * stripes). Under the lock, at a rotation or snapshot, so the record path never allocates.
   */
  void growIfContended(boolean rotated, long headroom) {
    int seen = contended;
    if (seen >= GROW_AFTER_CONTENDED && stripes.length < maxStripes) {
      contended = 0;
      grow(headroom);
    } else if (rotated && seen != 0) {
      contended = seen >> 1;
    }
  }

  /** Doubles the stripes up to the bound, as contention would. */
  void grow(long headroom) {
    Stripe[] table = stripes;
    if (table.length < maxStripes) {
      Stripe[] grown = Arrays.copyOf(table, table.length * 2);
      for (int i = table.length; i < grown.length; i++) {
        grown[i] = newStripe(grown.length, headroom);
      }
      stripes = grown;
    }
  }

  /** Stripes in use now. */
  int stripeCount() {
    return stripes.length;
  }

  /** Bytes the stripes hold, with dense count arrays of {@code denseArray} bytes each. */
  long footprintBytes(long denseArray) {
    Stripe[] table = stripes;
    return 16
        + 4L * table.length
        + table.length * (Stripe.BYTES + 2 * (Accumulator.BYTES + denseArray));
  }

  /** Bytes the stripes hold, their accumulators' counts as currently allocated. */
  long footprintBytes() {
    Stripe[] table = stripes;
    long bytes = 16 + 4L * table.length;
    for (Stripe stripe : table) {
      bytes += Stripe.BYTES + stripe.active.bytes() + stripe.inactive.bytes();
    }
    return bytes;
  }

  private Stripe newStripe(int stripeCount, long headroom) {
    Stripe stripe =
        compact
            ? new Stripe(Accumulator.compact(layout), Accumulator.compact(layout))
            : new Stripe(layout.length());
    if (limited) {
      long share = (headroom - granted) / (stripeCount + 1);
      stripe.active.raiseLimit(share);
      granted += share;
    } else {
      stripe.active.raiseLimit(Long.MAX_VALUE);
      stripe.inactive.raiseLimit(Long.MAX_VALUE);
    }
    return stripe;
  }

  /** One stripe's share of {@code headroom} not yet handed out. */
  private long share(long headroom) {
    return (headroom - granted) / (stripes.length + 1);
  }
}
