package io.ringtail;

import java.time.Duration;
import org.junit.jupiter.api.Nested;

/** The rolling-window contract, run against the compact window in several shapes and clocks. */
class CompactWindowContractTest extends RollingWindowContract {
  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    return compact(length, buckets, time);
  }

  static RollingWindow compact(Duration length, int buckets, ManualTimeSource time) {
    return CompactWindow.create(WindowConfig.builder().length(length).buckets(buckets).build(), time);
  }

  @Nested
  class ClockCrossingZero extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return compact(length, buckets, time);
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
      return compact(length, buckets, time);
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
      return compact(length, buckets, time);
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
      return compact(length, buckets, time);
    }

    @Override
    protected int buckets() {
      return 60_000;
    }
  }

  @Nested
  class ThreeDigits extends RollingWindowContract {
    @Override
    protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
      return CompactWindow.create(
          WindowConfig.builder().length(length).buckets(buckets).significantDigits(3).build(), time);
    }

    @Override
    protected double percentileTolerance() {
      return 0.001;
    }
  }
}
