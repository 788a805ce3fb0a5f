package io.ringtail;

import io.ringtail.internal.Probe;
import java.util.Arrays;

/**
 * The striped record path both in-process recorders share ({@link StripedWindow}, {@link
 * BucketRecorder}): padded stripes of two accumulators each, one a thread picks by its {@link
 * Probe}, written under the stripe's {@code WriterReaderPhaser} and drained by flipping it, as in
 * HdrHistogram's {@code Recorder}; more stripes under sustained contention, up to a bound.
 *
 * <p>Three kinds, one per factory: {@link #sharingHeadroom} (the in-process window), where each
 * undrained accumulator holds a share of the owner's sum headroom ({@code Long.MAX_VALUE} less the
 * sum the owner holds), handed out at each drain, and accepts a sample only within it, so the
 * owner's sum never wraps; {@link #fixed} and {@link #compact}, whose accumulators may each take up
 * to {@code Long.MAX_VALUE} (an owner that hands its buckets out long before), with dense arrays on
 * a fixed number of stripes or compact ones on stripes that grow.
 *
 * <h2>Concurrency protocol</h2>
 *
 * Built on HdrHistogram's {@code WriterReaderPhaser}, whose guarantees it inherits:
 *
 * <ol>
 *   <li>A record enters its stripe's phaser, adds sum (a compare-and-set), count, min and max to
 *       the stripe's active accumulator, and exits: two atomic increments on the phaser, a
 *       compare-and-set, an atomic add and two compares. It takes no lock and never waits, and
 *       allocates nothing (a compact accumulator's table aside, when it fills between two drains,
 *       see {@link BucketRecorder}). A writer whose compare-and-set on the sum fails met another
 *       writer: it moves to another stripe for its next record.
 *   <li>With {@link #sharingHeadroom}, the owner's sum never wraps. Each undrained accumulator
 *       holds a share of the headroom {@code Long.MAX_VALUE - owner's sum}, handed out at each
 *       drain, and accepts a sample only within it; a sample beyond its share is answered {@link
 *       Accumulator#OVER_LIMIT} and left for the owner to decide exactly under its lock ({@link
 *       #drainReleasingShares}, then {@link #grantShares}), which happens only when the owner's sum
 *       comes within a few shares of {@code Long.MAX_VALUE}.
 *   <li>A drain or flip (under the owner's lock) swaps each stripe's accumulators and flips its
 *       phaser, which returns once every record that could have seen the old accumulator has
 *       exited. The old accumulator is then read and zeroed by the lock holder alone. Each sample's
 *       count, sum, min and max therefore move together: nothing is lost, counted twice, or split.
 *   <li>Once enough records have collided (a count halved at every rotation) the next call to
 *       {@link #growIfContended} doubles the stripes, up to the bound. A stripe once added stays,
 *       so every drain sees every stripe a writer could have entered.
 * </ol>
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

  /** What a stripe's accumulators are and how much sum each may take. */
  private enum Kind {
    /** Dense, each undrained one holding a share of the owner's sum headroom. */
    SHARING_HEADROOM,
    /** Dense, each up to {@code Long.MAX_VALUE}. */
    DENSE,
    /** {@linkplain Accumulator#compact Compact}, each up to {@code Long.MAX_VALUE}. */
    COMPACT
  }

  private final BucketLayout layout;
  private final int maxStripes;
  private final Kind kind;

  /** Grown (under the lock) by copying; a stripe once added is never removed. */
  private volatile Stripe[] stripes;

  /** Contended records, halved at each rotation; counted racily, a hint only. */
  private int contended;

  /** Sum of the limits of the stripes' undrained accumulators; guarded by the owner's lock. */
  private long granted;

  private StripedRecorder(BucketLayout layout, int initial, int maxStripes, Kind kind) {
    this.layout = layout;
    this.maxStripes = Math.max(initial, maxStripes);
    this.kind = kind;
    Stripe[] table = new Stripe[initial];
    for (int i = 0; i < table.length; i++) {
      table[i] = newStripe(table.length, Long.MAX_VALUE);
    }
    this.stripes = table;
  }

  /**
   * A recorder for an owner that holds its buckets' sums (an in-process window, starting empty):
   * {@code initial} stripes (a power of two) of dense accumulators, growing under contention to
   * {@code growthBound}, each undrained accumulator holding a share of the owner's sum headroom.
   */
  static StripedRecorder sharingHeadroom(BucketLayout layout, int initial, int growthBound) {
    return new StripedRecorder(layout, initial, growthBound, Kind.SHARING_HEADROOM);
  }

  /**
   * A recorder of {@code stripes} stripes (a power of two), never more, of dense accumulators that
   * may each take up to {@code Long.MAX_VALUE}.
   */
  static StripedRecorder fixed(BucketLayout layout, int stripes) {
    return new StripedRecorder(layout, stripes, stripes, Kind.DENSE);
  }

  /**
   * A recorder of one stripe, growing under contention to {@code growthBound}, whose accumulators
   * are {@linkplain Accumulator#compact compact} and may each take up to {@code Long.MAX_VALUE};
   * their owner {@linkplain Accumulator#refit refits} them after reading each out.
   */
  static StripedRecorder compact(BucketLayout layout, int growthBound) {
    return new StripedRecorder(layout, 1, growthBound, Kind.COMPACT);
  }

  /**
   * Records into the calling thread's stripe: an in-range value into its slot, else a rejection.
   * Returns {@link Accumulator#OVER_LIMIT} when the stripe's share of the headroom cannot take the
   * value (nothing recorded), else {@link Accumulator#ADDED}. A thread that met another on its
   * stripe moves to another for its next record.
   */
  int record(long value, boolean inRange) {
    Stripe[] table = stripes;
    // one stripe: no thread-local lookup (a request thread's map is rarely in cache)
    Stripe stripe =
        table.length == 1 ? table[0] : table[Probe.current().hash() & (table.length - 1)];
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
      Probe.current().rehash();
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
   * Moves everything the stripes hold into {@code live}, each stripe's fresh accumulator getting a
   * share of the remaining headroom ({@code base - live.sum}, less what is still granted) and the
   * drained one's share released, so the owner's sum plus every share still out never passes {@code
   * base}.
   */
  void drainInto(Accumulator live, long base) {
    drain(live, base, true);
  }

  /**
   * Moves everything the stripes hold into {@code live}, releasing every share: the fresh
   * accumulators take nothing until {@link #grantShares}.
   */
  void drainReleasingShares(Accumulator live) {
    drain(live, 0, false);
  }

  private void drain(Accumulator live, long base, boolean withShares) {
    boolean sharing = kind == Kind.SHARING_HEADROOM;
    for (Stripe stripe : stripes) {
      Accumulator fresh = stripe.inactive;
      long share = !sharing ? Long.MAX_VALUE : withShares ? share(base - live.sum) : 0;
      fresh.limit = share;
      granted += sharing ? share : 0;
      stripe.phaser.readerLock();
      try {
        Accumulator drained = stripe.active;
        stripe.active = fresh;
        stripe.inactive = drained;
        stripe.phaser.flipPhase();
        live.takeAll(drained, layout);
        granted -= sharing ? drained.limit : 0;
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
        kind == Kind.COMPACT
            ? new Stripe(Accumulator.compact(layout), Accumulator.compact(layout))
            : new Stripe(layout.length());
    if (kind == Kind.SHARING_HEADROOM) {
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
