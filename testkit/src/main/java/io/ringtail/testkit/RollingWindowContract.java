package io.ringtail.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RollingWindow} implementation must do, whatever it stores and wherever.
 *
 * <p>Published in core's test-jar. A backend extends it, builds its window in {@link #newWindow},
 * and inherits every test. Time only moves when a test advances the {@link ManualTimeSource}, in
 * whole milliseconds. The central promise checked: a snapshot holds exactly the samples timed
 * within the interval it says it covers, and that interval spans between {@code length -
 * length/buckets} and {@code length}.
 */
public abstract class RollingWindowContract {
  private static final double[] PERCENTILES = {0, 1, 25, 50, 90, 95, 99, 99.9, 100};

  /** A new, empty window of {@code length} in {@code buckets} reading {@code time}. */
  protected abstract RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time);

  /** The window length the tests use. */
  protected Duration length() {
    return Duration.ofSeconds(60);
  }

  /** The bucket count the tests use. */
  protected int buckets() {
    return 60;
  }

  /** Largest relative error a percentile may have; 0 for an implementation that is exact. */
  protected double percentileTolerance() {
    return 0.01;
  }

  /** The reading the test clock starts at. */
  protected long startNanos() {
    return 1_000_000_000_000_000L;
  }

  /** How many random operations the reference-model test replays. */
  protected int randomOperations() {
    return 4_000;
  }

  private ManualTimeSource time() {
    return new ManualTimeSource(startNanos());
  }

  @Test
  public void emptyWindow_reportsNaNNotZero() {
    RollingWindow window = newWindow(length(), buckets(), time());
    WindowSnapshot s = window.snapshot();
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.count()).isZero();
    assertThat(s.sum()).isZero();
    assertThat(s.mean()).isNaN();
    assertThat(s.min()).isNaN();
    assertThat(s.max()).isNaN();
    assertThat(s.valueAtPercentile(95)).isNaN();
  }

  @Test
  public void zeroValuedSamples_areNotEmpty() {
    RollingWindow window = newWindow(length(), buckets(), time());
    window.record(0);
    window.record(0);
    WindowSnapshot s = window.snapshot();
    assertThat(s.isEmpty()).isFalse();
    assertThat(s.count()).isEqualTo(2);
    assertThat(s.mean()).isZero();
    assertThat(s.min()).isZero();
    assertThat(s.max()).isZero();
    assertThat(s.valueAtPercentile(99)).isZero();
  }

  @Test
  public void record_countsSumMinMaxExactly() {
    ManualTimeSource time = time();
    RollingWindow window = newWindow(length(), buckets(), time);
    long[] values = {1_234_567, 3, 999_999_999, 42_000, 42_001};
    for (long v : values) {
      window.record(v);
      time.advance(Duration.ofMillis(10));
    }
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(5);
    assertThat(s.sum()).isEqualTo(1_234_567 + 3 + 999_999_999 + 42_000 + 42_001);
    assertThat(s.min()).isEqualTo(3);
    assertThat(s.max()).isEqualTo(999_999_999);
    assertThat(s.mean())
        .isCloseTo((1_234_567 + 3 + 999_999_999 + 42_000 + 42_001) / 5.0, within(1e-6));
  }

  @Test
  public void samples_leaveOnceOlderThanLength() {
    ManualTimeSource time = time();
    RollingWindow window = newWindow(length(), buckets(), time);
    window.record(7);
    time.advance(length().dividedBy(2));
    if (buckets() > 1) {
      assertThat(window.snapshot().count()).isEqualTo(1);
    }
    time.advance(length().dividedBy(2));
    window.record(8);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.min()).isEqualTo(8);
    time.advance(length());
    assertThat(window.snapshot().isEmpty()).isTrue();
  }

  @Test
  public void snapshot_coversBetweenLengthLessOneBucketAndLength() {
    ManualTimeSource time = time();
    RollingWindow window = newWindow(length(), buckets(), time);
    long width = length().toNanos() / buckets();
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 200; i++) {
      time.advance(Duration.ofMillis(random.nextInt(1, 5_000)));
      WindowSnapshot s = window.snapshot();
      assertThat(s.endNanos()).isEqualTo(time.nanoTime());
      long span = s.endNanos() - s.startNanos();
      assertThat(span)
          .isLessThan(length().toNanos())
          .isGreaterThanOrEqualTo(length().toNanos() - width);
    }
  }

  @Test
  public void randomStream_matchesExactModel() {
    ManualTimeSource time = time();
    RollingWindow window = newWindow(length(), buckets(), time);
    ExactWindowModel model = new ExactWindowModel();
    SplittableRandom random = new SplittableRandom(20261130);
    int snapshots = 0;
    for (int op = 0; op < randomOperations(); op++) {
      int dice = random.nextInt(100);
      if (dice < 10) {
        time.advance(Duration.ofMillis(random.nextInt(0, 3_000)));
      } else if (dice < 12) {
        time.advance(Duration.ofMillis(random.nextInt(0, 90_000)));
      } else if (dice < 95) {
        long value =
            random.nextInt(10) == 0
                ? random.nextLong(0, 1_000)
                : (long) Math.exp(13 + 1.2 * gaussian(random));
        window.record(value);
        model.record(value, time.nanoTime());
      } else {
        snapshots++;
        assertMatches(window.snapshot(), model);
      }
    }
    assertMatches(window.snapshot(), model);
    assertThat(snapshots).isGreaterThan(50);
  }

  private void assertMatches(WindowSnapshot s, ExactWindowModel model) {
    ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
    assertThat(s.count()).as("count").isEqualTo(exact.count());
    assertThat(s.sum()).as("sum").isEqualTo(exact.sum());
    if (exact.count() == 0) {
      assertThat(s.isEmpty()).isTrue();
      assertThat(s.max()).isNaN();
      return;
    }
    assertThat(s.min()).as("min").isEqualTo(exact.min());
    assertThat(s.max()).as("max").isEqualTo(exact.max());
    for (double p : PERCENTILES) {
      long expected = exact.valueAtPercentile(p);
      assertThat(s.valueAtPercentile(p))
          .as("p%s of %s samples", p, exact.count())
          .isCloseTo(expected, within(expected * percentileTolerance() + 1e-9));
    }
  }

  @Test
  public void negativeSample_isRejectedNotRecorded() {
    RollingWindow window = newWindow(length(), buckets(), time());
    window.record(5);
    window.record(-1);
    window.record(Long.MIN_VALUE);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.min()).isEqualTo(5);
    assertThat(s.rejected()).isEqualTo(2);
  }

  @Test
  public void idleLongerThanWindow_emptiesAndKeepsWorking() {
    ManualTimeSource time = time();
    RollingWindow window = newWindow(length(), buckets(), time);
    for (int i = 0; i < 100; i++) {
      window.record(i);
    }
    time.advance(Duration.ofDays(7));
    assertThat(window.snapshot().isEmpty()).isTrue();
    window.record(11);
    WindowSnapshot s = window.snapshot();
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.max()).isEqualTo(11);
  }

  @Test
  public void percentile_outsideRange_isRejected() {
    RollingWindow window = newWindow(length(), buckets(), time());
    window.record(1);
    WindowSnapshot s = window.snapshot();
    assertThatThrownBy(() -> s.valueAtPercentile(100.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("percentile");
    assertThatThrownBy(() -> s.valueAtPercentile(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> s.valueAtPercentile(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public void concurrentWriters_loseNothing() throws Exception {
    ManualTimeSource time = time();
    RollingWindow window = newWindow(length(), buckets(), time);
    int threads = 4;
    int perThread = concurrentRecordsPerThread();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Callable<Void>> tasks = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long value = t + 1;
        tasks.add(
            () -> {
              for (int i = 0; i < perThread; i++) {
                window.record(value);
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
    assertThat(s.count()).isEqualTo((long) threads * perThread);
    assertThat(s.sum()).isEqualTo((long) perThread * (1 + 2 + 3 + 4));
  }

  /** Records each of four threads makes in {@link #concurrentWriters_loseNothing()}. */
  protected int concurrentRecordsPerThread() {
    return 50_000;
  }

  public static double gaussian(SplittableRandom random) {
    double u1 = random.nextDouble();
    double u2 = random.nextDouble();
    return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
  }
}
