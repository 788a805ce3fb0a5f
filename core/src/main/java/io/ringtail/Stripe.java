package io.ringtail;

import org.HdrHistogram.WriterReaderPhaser;

abstract class StripePadBefore {
  long p01, p02, p03, p04, p05, p06, p07, p08;
}

abstract class StripeFields extends StripePadBefore {
  final WriterReaderPhaser phaser = new WriterReaderPhaser();
  volatile Accumulator active;
  Accumulator inactive;
}

/**
 * One recording stripe, padded so that two stripes' hot fields never share a cache line. Several
 * threads may share a stripe; they then contend only with each other.
 */
final class Stripe extends StripeFields {
  static final long BYTES = 16 + 8 * 8 + 4 + 4 + 8 * 8 + 64 /* phaser */;
  long p11, p12, p13, p14, p15, p16, p17, p18;

  Stripe(int length) {
    this(new Accumulator(length), new Accumulator(length));
  }

  Stripe(Accumulator active, Accumulator inactive) {
    this.active = active;
    this.inactive = inactive;
  }
}
