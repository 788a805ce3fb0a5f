package io.ringtail.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import io.ringtail.testkit.Races;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** The eviction protocol every in-process decision relies on. */
class KeyedStatesTest {

  static final class Counter extends KeyState {
    final int key;
    int decisions;

    Counter(int key) {
      this.key = key;
    }
  }

  @Test
  void underEvictionChurn_noTwoStatesOfOneKeyAreDecidedOnAtOnce() throws Exception {
    int keys = 16;
    AtomicInteger created = new AtomicInteger();
    KeyedStates<Counter> states =
        new KeyedStates<>(
            4,
            Long.MAX_VALUE / 2,
            new ManualTimeSource(),
            k -> {
              created.incrementAndGet();
              return new Counter(Integer.parseInt(k));
            });
    AtomicIntegerArray inside = new AtomicIntegerArray(keys);
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger next = new AtomicInteger();
    int decided =
        Races.countTrue(
            8,
            20_000,
            () -> {
              int key = next.getAndIncrement() % keys;
              while (true) {
                Counter c = states.get(Integer.toString(key));
                Thread
                    .yield(); // widen the gap in which the state may be evicted before it is locked
                synchronized (c) {
                  if (c.retired) {
                    continue;
                  }
                  if (inside.incrementAndGet(key) != 1) {
                    overlaps.incrementAndGet();
                  }
                  c.decisions++;
                  Thread.yield();
                  inside.decrementAndGet(key);
                  return true;
                }
              }
            });
    assertThat(decided).isEqualTo(8 * 20_000);
    assertThat(created.get()).as("evictions did happen").isGreaterThan(keys * 10);
    assertThat(overlaps).hasValue(0);
  }
}
