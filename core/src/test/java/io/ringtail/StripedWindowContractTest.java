package io.ringtail;

import java.time.Duration;
import org.junit.jupiter.api.Nested;

/** The contract, run against the in-process window in several shapes and at awkward clock readings. */
class StripedWindowContractTest extends RollingWindowContract {
  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    return striped(length, buckets, time);
  }

  static RollingWindow striped(Duration length, int buckets, ManualTimeSource time) {
    return RollingWindow.create(WindowConfig.builder().length(length).buckets(buckets).build(), time);
  }

  @Nested
  class ClockCrossingZero extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return striped(length, buckets, time);
    }

    @Override
    protected long startNanos() {
      return -Duration.ofSeconds(90).toNanos();
    }
  }

  @Nested
  class ClockWrappingPastLongMax extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return striped(length, buckets, time);
    }

    @Override
    protected long startNanos() {
      return Long.MAX_VALUE - Duration.ofSeconds(90).toNanos();
    }
  }

  @Nested
  class OneBucket extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return striped(length, buckets, time);
    }

    @Override
    protected int buckets() {
      return 1;
    }
  }

  @Nested
  class ManyBuckets extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return striped(length, buckets, time);
    }

    @Override
    protected int buckets() {
      return 60_000;
    }
  }

  @Nested
  class OneStripe extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return RollingWindow.create(
          WindowConfig.builder().length(length).buckets(buckets).stripes(1).build(), time);
    }
  }

  @Nested
  class ThreeDigits extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return RollingWindow.create(
          WindowConfig.builder().length(length).buckets(buckets).significantDigits(3).build(), time);
    }

    @Override
    protected double percentileTolerance() {
      return 0.001;
    }
  }
}
