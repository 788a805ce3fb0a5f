package io.ringtail;

import io.ringtail.testkit.RollingWindowContract;

import java.time.Duration;
import org.junit.jupiter.api.Nested;

/**
 * The rolling-window contract for an in-process window, run in several shapes (one bucket,
 * 60,000 buckets, one stripe, three digits) and at awkward clock readings (crossing zero,
 * wrapping past {@link Long#MAX_VALUE}).
 */
abstract class InProcessWindowContract extends RollingWindowContract {

  /** Builds the window under test. */
  abstract RollingWindow build(WindowConfig config, ManualTimeSource time);

  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    return build(WindowConfig.builder().length(length).buckets(buckets).build(), time);
  }

  /** A variant sharing the outer window's factory. */
  abstract class Variant extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return build(shape(WindowConfig.builder().length(length).buckets(buckets)).build(), time);
    }

    WindowConfig.Builder shape(WindowConfig.Builder builder) {
      return builder;
    }
  }

  @Nested
  class ClockCrossingZero extends Variant {
    @Override
    protected long startNanos() {
      return -Duration.ofSeconds(90).toNanos();
    }
  }

  @Nested
  class ClockWrappingPastLongMax extends Variant {
    @Override
    protected long startNanos() {
      return Long.MAX_VALUE - Duration.ofSeconds(90).toNanos();
    }
  }

  @Nested
  class OneBucket extends Variant {
    @Override
    protected int buckets() {
      return 1;
    }
  }

  @Nested
  class ManyBuckets extends Variant {
    @Override
    protected int buckets() {
      return 60_000;
    }
  }

  @Nested
  class OneStripe extends Variant {
    @Override
    WindowConfig.Builder shape(WindowConfig.Builder builder) {
      return builder.stripes(1);
    }
  }

  @Nested
  class ThreeDigits extends Variant {
    @Override
    WindowConfig.Builder shape(WindowConfig.Builder builder) {
      return builder.significantDigits(3);
    }

    @Override
    protected double percentileTolerance() {
      return 0.001;
    }
  }
}
