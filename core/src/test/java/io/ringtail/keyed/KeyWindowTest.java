package io.ringtail.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.CumulativeHistogram;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One key's window ({@link KeyedWindows#window}) against an exact model of every key. */
class KeyWindowTest {
  private static final long START = 1_000_000_000_000L;
  private static final double[] PERCENTILES = {0, 50, 95, 99, 100};

  /** The in-process windows as built, or wrapped so that {@code window} is the interface's. */
  private static KeyedWindows keyed(ManualTimeSource time, boolean viaDefault) {
    KeyedWindows keyed = KeyedWindows.builder().timeSource(time).build();
    return viaDefault ? new KeyWindowContractTest.Delegating(keyed) : keyed;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void window_recordsIntoAndReadsExactlyItsKey_matchesExactModel(boolean viaDefault) {
    ManualTimeSource time = new ManualTimeSource(START);
    KeyedWindows keyed = keyed(time, viaDefault);
    String[] keys = {"GET /a", "GET /b", "tool:whois"};
    Map<String, RollingWindow> windows = new HashMap<>();
    for (String key : keys) {
      windows.put(key, keyed.window(key));
    }
    Map<String, ExactWindowModel> models = new HashMap<>();
    for (String key : keys) {
      models.put(key, new ExactWindowModel());
    }
    SplittableRandom random = new SplittableRandom(7);
    int checks = 0;
    for (int op = 0; op < 20_000; op++) {
      int dice = random.nextInt(100);
      String key = keys[random.nextInt(keys.length)];
      RollingWindow window = windows.get(key);
      long value = 1_000 + random.nextLong(50_000_000);
      if (dice < 10) {
        time.advance(Duration.ofMillis(random.nextInt(3_000)));
      } else if (dice == 10) {
        time.advance(Duration.ofMillis(random.nextInt(90_000)));
      } else if (dice < 60) {
        window.record(value);
        models.get(key).record(value, time.nanoTime());
      } else if (dice < 75) {
        long at = time.nanoTime();
        window.recordAt(value, at);
        models.get(key).record(value, at);
      } else if (dice < 90) {
        keyed.record(key, value);
        models.get(key).record(value, time.nanoTime());
      } else {
        checks++;
        WindowSnapshot s = window.snapshot();
        assertMatches(s, models.get(key));
        for (String other : keys) {
          assertMatches(keyed.snapshot(other), models.get(other));
        }
      }
    }
    assertThat(checks).isGreaterThan(1_000);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void window_leavesOtherKeysUntouched_andCreatesItsKeyOnlyOnRecord(boolean viaDefault) {
    ManualTimeSource time = new ManualTimeSource(START);
    KeyedWindows keyed = keyed(time, viaDefault);
    keyed.record("b", 5);
    RollingWindow a = keyed.window("a");

    assertThat(a.snapshot().isEmpty()).isTrue();
    assertThat(keyed.snapshots()).containsOnlyKeys("b");

    a.record(7);
    a.recordAt(9, time.nanoTime());
    assertThat(keyed.snapshots()).containsOnlyKeys("a", "b");
    assertThat(keyed.snapshot("a").count()).isEqualTo(2);
    assertThat(keyed.snapshot("a").sum()).isEqualTo(16);
    assertThat(keyed.snapshot("b").count()).isEqualTo(1);
    assertThat(keyed.snapshot("b").sum()).isEqualTo(5);
    assertThat(a.length()).isEqualTo(keyed.windowConfig().length());
    assertThat(a.timeSource()).isSameAs(time);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void window_badKey_isRejectedNamingKey(boolean viaDefault) {
    KeyedWindows keyed = keyed(new ManualTimeSource(START), viaDefault);
    assertThatThrownBy(() -> keyed.window(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> keyed.window(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("key");
  }

  @Test
  void inProcessWindow_footprintIsTheKeysShare() {
    KeyedWindows keyed = KeyedWindows.builder().timeSource(new ManualTimeSource(START)).build();
    RollingWindow a = keyed.window("a");
    RollingWindow b = keyed.window("b");
    assertThat(a.footprintBytes()).isZero();
    for (int i = 0; i < 100; i++) {
      a.record(1_000L * (i + 1));
    }
    b.record(3);
    assertThat(a.footprintBytes()).isGreaterThan(b.footprintBytes()).isPositive();
    assertThat(b.footprintBytes()).isPositive();
    assertThat(a.footprintBytes() + b.footprintBytes()).isEqualTo(keyed.footprintBytes());
    assertThat(keyed.window("c").footprintBytes()).isZero();
  }

  @Test
  void defaultWindow_footprintIsZero_itHoldsNothing() {
    KeyedWindows keyed = keyed(new ManualTimeSource(START), true);
    RollingWindow a = keyed.window("a");
    a.record(5);
    assertThat(keyed.footprintBytes()).isPositive();
    assertThat(a.footprintBytes()).isZero();
  }

  @Test
  void inProcessWindow_readsTheKeysCumulativeHistogram() {
    ManualTimeSource time = new ManualTimeSource(START);
    KeyedWindows keyed =
        KeyedWindows.builder()
            .timeSource(time)
            .window(WindowConfig.builder().cumulativeHistogram(true).build())
            .build();
    RollingWindow a = keyed.window("a");
    assertThat(a.cumulativeHistogram()).hasValueSatisfying(c -> assertThat(c.count()).isZero());
    a.record(5);
    a.record(6);
    keyed.record("b", 7);
    time.advance(Duration.ofSeconds(30));
    keyed.record("b", 8);
    CumulativeHistogram c = a.cumulativeHistogram().orElseThrow();
    assertThat(c.count()).isEqualTo(keyed.cumulativeHistograms().get("a").count()).isEqualTo(2);
    assertThat(keyed.window("b").cumulativeHistogram().orElseThrow().count()).isEqualTo(2);
  }

  private static void assertMatches(WindowSnapshot s, ExactWindowModel model) {
    ExactWindowModel.Stats exact = model.between(s.startNanos(), s.endNanos());
    assertThat(s.count()).as("count").isEqualTo(exact.count());
    assertThat(s.sum()).as("sum").isEqualTo(exact.sum());
    if (exact.count() == 0) {
      assertThat(s.isEmpty()).isTrue();
      return;
    }
    assertThat(s.min()).isEqualTo(exact.min());
    assertThat(s.max()).isEqualTo(exact.max());
    for (double p : PERCENTILES) {
      long expected = exact.valueAtPercentile(p);
      assertThat(s.valueAtPercentile(p)).as("p%s", p).isCloseTo(expected, within(expected * 0.01));
    }
  }
}
