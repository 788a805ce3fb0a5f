package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.testkit.RollingWindowContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The rolling-window contract for an in-process window, run in several shapes (one bucket, 60,000
 * buckets, one stripe, three digits) and at awkward clock readings (crossing zero, wrapping past
 * {@link Long#MAX_VALUE}).
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

  private static final long START = 1_000_000_000_000L;

  @Test
  void sampleThatWouldOverflowTheSum_isRejectedNeverWrapped() {
    ManualTimeSource time = new ManualTimeSource(START);
    RollingWindow window =
        build(WindowConfig.builder().highestTrackableValue(Long.MAX_VALUE).build(), time);
    window.record(Long.MAX_VALUE);
    window.record(Long.MAX_VALUE);
    window.record(1);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.sum()).isEqualTo(Long.MAX_VALUE);
    assertThat(s.mean()).isEqualTo((double) Long.MAX_VALUE);
    assertThat(s.rejected()).isEqualTo(2);

    time.advance(Duration.ofSeconds(61));
    window.record(Long.MAX_VALUE - 5);
    window.record(5);
    window.record(1);
    s = window.snapshot();
    assertThat(s.count()).as("room again once the large sample left").isEqualTo(2);
    assertThat(s.sum()).isEqualTo(Long.MAX_VALUE);
    assertThat(s.rejected()).isEqualTo(1);
  }

  @Test
  void sumNearOverflow_acrossBucketsAndThreads_staysExact() throws Exception {
    ManualTimeSource time = new ManualTimeSource(START);
    RollingWindow window =
        build(
            WindowConfig.builder().highestTrackableValue(Long.MAX_VALUE).stripes(4).build(), time);
    long value = Long.MAX_VALUE / 1_000;
    int threads = 4;
    int perThread = 1_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Callable<Void>> tasks = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        tasks.add(
            () -> {
              for (int i = 0; i < perThread; i++) {
                window.record(value);
                if (i % 100 == 0) {
                  time.advance(Duration.ofMillis(100));
                }
              }
              return null;
            });
      }
      for (Future<Void> f : pool.invokeAll(tasks)) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1_000);
    assertThat(s.sum()).isEqualTo(1_000 * value);
    assertThat(s.rejected()).isEqualTo((long) threads * perThread - 1_000);
  }

  @Test
  void sampleMoreThanOneBucketAhead_isRejectedAndLeavesTheWindowWhereItWas() {
    ManualTimeSource time = new ManualTimeSource(START);
    RollingWindow window = build(WindowConfig.defaults(), time);
    window.record(1);
    window.recordAt(2, time.nanoTime() + Duration.ofSeconds(300).toNanos());
    window.recordAt(3, time.nanoTime() + Duration.ofMillis(2_001).toNanos());
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.rejected()).isEqualTo(2);
    assertThat(s.endNanos()).isEqualTo(time.nanoTime());

    time.advance(Duration.ofSeconds(30));
    window.record(4);
    s = window.snapshot();
    assertThat(s.count()).as("the window did not jump ahead and drop what it held").isEqualTo(2);
    assertThat(s.sum()).isEqualTo(5);
  }

  @Test
  void sampleAtMostOneBucketAhead_isRecorded() {
    ManualTimeSource time = new ManualTimeSource(START);
    RollingWindow window = build(WindowConfig.defaults(), time);
    window.record(1);
    window.recordAt(2, time.nanoTime() + Duration.ofSeconds(1).toNanos());
    time.advance(Duration.ofSeconds(1));
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.rejected()).isZero();
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
