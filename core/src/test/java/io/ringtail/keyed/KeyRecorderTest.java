package io.ringtail.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.ExactWindowModel;
import io.ringtail.testkit.Races;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link KeyedWindows#recorder}: the same windows as {@code recordAt}, its key kept alive. */
class KeyRecorderTest {
  private static final Duration LENGTH = Duration.ofSeconds(60);
  private static final Duration BUCKET = Duration.ofSeconds(5); // the default 12 buckets

  private static KeyedWindows windows(ManualTimeSource time, long maximumKeys, boolean compact) {
    return KeyedWindows.builder()
        .timeSource(time)
        .maximumKeys(maximumKeys)
        .compact(compact)
        .build();
  }

  @Test
  void recorders_matchRecordAtAndAnExactModel_onRandomStreams() {
    for (boolean compact : new boolean[] {true, false}) {
      ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
      KeyedWindows viaRecorders = windows(time, 100, compact);
      KeyedWindows viaKeys = windows(time, 100, compact);
      String[] keys = {"GET /a", "GET /b", "POST /c"};
      Map<String, KeyedWindows.KeyRecorder> recorders = new HashMap<>();
      for (String key : keys) {
        recorders.put(key, viaRecorders.recorder(key));
      }
      Map<String, ExactWindowModel> models = new HashMap<>();
      SplittableRandom random = new SplittableRandom(7);
      int checks = 0;
      for (int op = 0; op < 20_000; op++) {
        int dice = random.nextInt(100);
        String key = keys[random.nextInt(keys.length)];
        if (dice < 10) {
          time.advance(Duration.ofMillis(random.nextInt(4_000)));
        } else if (dice == 10) {
          time.advance(Duration.ofMillis(random.nextInt(90_000))); // keys expire, come back
        } else if (dice < 95) {
          long value = 1_000 + random.nextLong(50_000_000);
          if (random.nextBoolean()) {
            recorders.get(key).recordAt(value, time.nanoTime());
          } else {
            recorders.get(key).record(value);
          }
          viaKeys.record(key, value);
          models.computeIfAbsent(key, k -> new ExactWindowModel()).record(value, time.nanoTime());
        } else {
          checks++;
          WindowSnapshot s = viaRecorders.snapshot(key);
          ExactWindowModel.Stats exact =
              models
                  .computeIfAbsent(key, k -> new ExactWindowModel())
                  .between(s.startNanos(), s.endNanos());
          assertThat(s.count()).as("count").isEqualTo(exact.count());
          assertThat(s.sum()).as("sum").isEqualTo(exact.sum());
          assertSameWindow(s, viaKeys.snapshot(key));
        }
      }
      assertThat(checks).isGreaterThan(500);
    }
  }

  private static void assertSameWindow(WindowSnapshot actual, WindowSnapshot expected) {
    assertThat(actual.startNanos()).isEqualTo(expected.startNanos());
    assertThat(actual.endNanos()).isEqualTo(expected.endNanos());
    assertThat(actual.count()).isEqualTo(expected.count());
    assertThat(actual.sum()).isEqualTo(expected.sum());
    if (expected.count() > 0) {
      assertThat(actual.min()).isEqualTo(expected.min());
      assertThat(actual.max()).isEqualTo(expected.max());
      for (double p : new double[] {50, 95, 99}) {
        assertThat(actual.valueAtPercentile(p)).isEqualTo(expected.valueAtPercentile(p));
      }
    }
  }

  @Test
  void aRecordedKey_staysWhileItsSamplesCanBeInASnapshot_andAtMostOneBucketLonger() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 100, true);
    KeyedWindows.KeyRecorder recorder = windows.recorder("a");
    time.advance(Duration.ofSeconds(3));
    recorder.record(1); // 3 s: reads the cache, the key's lifetime counts from here
    time.advance(Duration.ofMillis(4_900));
    recorder.record(2); // 7.9 s, within a bucket width of the read: not read again
    time.advance(Duration.ofSeconds(57)); // 64.9 s: the second sample's bucket [5 s, 10 s) is in
    assertThat(windows.snapshot("a").count()).isEqualTo(1);
    assertThat(windows.snapshot("a").sum()).isEqualTo(2);
    assertThat(windows.estimatedKeys()).isEqualTo(1);
    time.advance(Duration.ofMillis(3_100)); // 68 s: 3 s + the window + one bucket
    assertThat(windows.snapshots()).isEmpty();
    time.advance(Duration.ofMillis(1_100)); // expired keys are swept about a second later
    assertThat(windows.estimatedKeys()).isZero();
  }

  @Test
  void aKeyRecordedByKeyAndThenByRecorder_isKeptForTheRecordersSamples() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 100, true);
    windows.record("a", 1); // 0 s: a key's window, as recordAt keeps it
    KeyedWindows.KeyRecorder recorder = windows.recorder("a");
    time.advance(Duration.ofSeconds(1));
    recorder.record(2); // 1 s: the recorder takes the key over
    time.advance(BUCKET.minusNanos(1));
    recorder.record(3); // bucket [5 s, 10 s), not read again
    time.advance(Duration.ofSeconds(58)); // 64 s: recordAt alone would have dropped it at 61 s
    assertThat(windows.snapshot("a").count()).isEqualTo(1);
    assertThat(windows.snapshot("a").sum()).isEqualTo(3);
  }

  @Test
  void anEvictedKey_getsANewWindowAtTheRecordersNextSample_andListenersAreTold() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 1, true);
    List<String> told = new ArrayList<>();
    windows.addKeyListener(told::add);
    KeyedWindows.KeyRecorder a = windows.recorder("a");
    a.record(1);
    for (int i = 0; i < 50; i++) {
      windows.record("b" + i, 1); // each takes the only place: "a" is evicted
    }
    assertThat(windows.snapshot("a").isEmpty()).isTrue();
    a.record(5);
    assertThat(windows.snapshot("a").count()).isEqualTo(1);
    assertThat(windows.snapshot("a").max()).isEqualTo(5);
    assertThat(told).startsWith("a").contains("b0").endsWith("a");
  }

  @Test
  void anExpiredKey_getsANewWindowAtTheRecordersNextSample() {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows = windows(time, 100, false);
    KeyedWindows.KeyRecorder a = windows.recorder("a");
    a.record(1);
    time.advance(LENGTH.plus(BUCKET));
    assertThat(windows.estimatedKeys()).isZero();
    a.record(7);
    assertThat(windows.snapshot("a").count()).isEqualTo(1);
    assertThat(windows.snapshot("a").sum()).isEqualTo(7);
  }

  @Test
  void badKey_throws() {
    KeyedWindows windows = windows(new ManualTimeSource(), 10, true);
    assertThatThrownBy(() -> windows.recorder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> windows.recorder("")).isInstanceOf(IllegalArgumentException.class);
    assertThat(windows.recorder("k").key()).isEqualTo("k");
  }

  @Test
  void concurrentRecordersOnFewKeys_loseNothing_whileTimeAdvancesThroughRenewals()
      throws Exception {
    ManualTimeSource time = new ManualTimeSource();
    KeyedWindows windows =
        KeyedWindows.builder()
            .timeSource(time)
            .window(WindowConfig.builder().length(LENGTH).buckets(12).stripes(1).build())
            .compact(false)
            .build();
    KeyedWindows.KeyRecorder[] recorders = new KeyedWindows.KeyRecorder[4];
    for (int i = 0; i < recorders.length; i++) {
      recorders[i] = windows.recorder("k" + i);
    }
    AtomicInteger next = new AtomicInteger();
    int threads = 8;
    int perThread = 20_000;
    Races.countTrue(
        threads,
        perThread,
        () -> {
          int n = next.getAndIncrement();
          if (n % 1_000 == 0) {
            time.advance(Duration.ofMillis(200)); // 32 s in all: renewals, no expiry
          }
          recorders[n % recorders.length].record(1 + n % 1_000);
          return true;
        });
    KeyedWindowsTest.assertHoldsSamplesOneTo1000(windows, (long) threads * perThread);
  }
}
