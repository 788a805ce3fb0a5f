package io.ringtail.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.ExactWindowModel;
import io.ringtail.testkit.Races;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KeyedWindowsTest {
  private static final Duration LENGTH = Duration.ofSeconds(60);
  private static final double[] PERCENTILES = {0, 50, 95, 99, 100};

  private static KeyedWindows windows(ManualTimeSource time, long maximumKeys) {
    return KeyedWindows.builder().timeSource(time).maximumKeys(maximumKeys).build();
  }

  @Test
  void defaults_areOneStripeSixtySecondsInTwelveBuckets() {
    WindowConfig config = KeyedWindows.defaultWindowConfig();
    assertThat(config.stripes()).isEqualTo(1);
    assertThat(config.length()).isEqualTo(LENGTH);
    assertThat(config.buckets()).isEqualTo(12);
    assertThat(KeyedWindows.builder().build().windowConfig()).isEqualTo(config);
  }

  @Test
  void perKeyStatistics_matchExactModel_onRandomStreams() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    KeyedWindows windows = windows(time, 100);
    String[] keys = {"GET /a", "GET /b", "tool:whois"};
    Map<String, ExactWindowModel> models = new HashMap<>();
    SplittableRandom random = new SplittableRandom(99);
    int checks = 0;
    for (int op = 0; op < 20_000; op++) {
      int dice = random.nextInt(100);
      String key = keys[random.nextInt(keys.length)];
      if (dice < 10) {
        time.advance(Duration.ofMillis(random.nextInt(3_000)));
      } else if (dice == 10) {
        time.advance(Duration.ofMillis(random.nextInt(90_000)));
      } else if (dice < 95) {
        long value = 1_000 + random.nextLong(50_000_000);
        windows.record(key, value);
        models.computeIfAbsent(key, k -> new ExactWindowModel()).record(value, time.nanoTime());
      } else {
        checks++;
        assertMatches(
            windows.snapshot(key), models.computeIfAbsent(key, k -> new ExactWindowModel()));
      }
    }
    assertThat(checks).isGreaterThan(500);
    for (Map.Entry<String, WindowSnapshot> e : windows.snapshots().entrySet()) {
      assertMatches(e.getValue(), models.get(e.getKey()));
    }
  }

  private static void assertMatches(WindowSnapshot s, ExactWindowModel model) {
    ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
    assertThat(s.count()).as("count").isEqualTo(exact.count());
    assertThat(s.sum()).as("sum").isEqualTo(exact.sum());
    if (exact.count() == 0) {
      assertThat(s.isEmpty()).isTrue();
      assertThat(s.valueAtPercentile(95)).isNaN();
      return;
    }
    assertThat(s.min()).isEqualTo(exact.min());
    assertThat(s.max()).isEqualTo(exact.max());
    for (double p : PERCENTILES) {
      long expected = exact.valueAtPercentile(p);
      assertThat(s.valueAtPercentile(p)).as("p%s", p).isCloseTo(expected, within(expected * 0.01));
    }
  }

  @Test
  void absentKey_hasAnEmptySnapshot_andIsNotCreated() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 10);
    WindowSnapshot s = windows.snapshot("never");
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.mean()).isNaN();
    assertThat(s.endNanos()).isEqualTo(time.nanoTime());
    assertThat(windows.estimatedKeys()).isZero();
  }

  @Test
  void idleKeysGoAway_andSnapshotsDoNotKeepThemAlive() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 10_000);
    for (int i = 0; i < 1_000; i++) {
      windows.record("k" + i, i);
    }
    time.advance(LENGTH.minusNanos(1));
    assertThat(windows.snapshot("k7").count()).isEqualTo(1);
    assertThat(windows.estimatedKeys()).isEqualTo(1_000);
    time.advanceNanos(1);
    assertThat(windows.snapshots()).isEmpty();
    assertThat(windows.snapshot("k7").isEmpty()).isTrue();
    time.advance(Duration.ofMillis(1_100)); // expired keys are swept about a second later
    assertThat(windows.estimatedKeys()).isZero();
  }

  @Test
  void maximumKeys_boundsHeldKeys() {
    KeyedWindows windows = windows(new ManualTimeSource(), 50);
    for (int i = 0; i < 2_000; i++) {
      windows.record("k" + i, 1);
    }
    assertThat(windows.estimatedKeys()).isLessThanOrEqualTo(50);
  }

  @Test
  void badKey_throws_badSampleIsRejectedVisibly() {
    KeyedWindows windows = windows(new ManualTimeSource(), 10);
    windows.record("a", 5);
    assertThatThrownBy(() -> windows.record(null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> windows.recordAt("", 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> windows.snapshot("")).isInstanceOf(IllegalArgumentException.class);
    windows.record("a", -1);
    WindowSnapshot s = windows.snapshot("a");
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.rejected()).isEqualTo(1);
  }

  @Test
  void builder_rejectsBadValues() {
    assertThatThrownBy(() -> KeyedWindows.builder().maximumKeys(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumKeys");
    assertThatThrownBy(() -> KeyedWindows.builder().window(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("window");
  }

  @Test
  void concurrentRecordingOnManyKeys_losesNothing() throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 1_000);
    AtomicInteger next = new AtomicInteger();
    int threads = 8;
    int perThread = 20_000;
    Races.countTrue(
        threads,
        perThread,
        () -> {
          int n = next.getAndIncrement();
          windows.record("k" + (n % 16), 1 + n % 1_000);
          return true;
        });
    assertHoldsSamplesOneTo1000(windows, (long) threads * perThread);
  }

  /**
   * Asserts that {@code windows} hold, over all keys, exactly {@code total} samples, the n-th of
   * them (from 0) {@code 1 + n % 1000}: what the stress tests record.
   */
  static void assertHoldsSamplesOneTo1000(KeyedWindows windows, long total) {
    long count = 0;
    long sum = 0;
    for (WindowSnapshot s : windows.snapshots().values()) {
      count += s.count();
      sum += s.sum();
    }
    long expectedSum = 0;
    for (int n = 0; n < total; n++) {
      expectedSum += 1 + n % 1_000;
    }
    assertThat(count).isEqualTo(total);
    assertThat(sum).isEqualTo(expectedSum);
  }

  @Test
  void footprint_isReportedPerHeldKey_compactByDefault() {
    KeyedWindows windows = windows(new ManualTimeSource(), 100);
    windows.record("a", 1);
    long one = windows.footprintBytes();
    windows.record("b", 1);
    assertThat(one).isBetween(100L, 1024L);
    assertThat(windows.footprintBytes()).isEqualTo(2 * one);

    KeyedWindows striped =
        KeyedWindows.builder().compact(false).timeSource(new ManualTimeSource()).build();
    striped.record("a", 1);
    assertThat(striped.footprintBytes()).isBetween(128L * 1024, 192L * 1024);
  }

  @Test
  void stripedPerKeyWindows_matchExactModelToo() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = KeyedWindows.builder().compact(false).timeSource(time).build();
    ExactWindowModel model = new ExactWindowModel();
    SplittableRandom random = new SplittableRandom(4);
    for (int i = 0; i < 2_000; i++) {
      time.advance(Duration.ofMillis(random.nextInt(500)));
      long value = random.nextLong(1_000_000_000L);
      windows.record("k", value);
      model.record(value, time.nanoTime());
    }
    assertMatches(windows.snapshot("k"), model);
  }
}
