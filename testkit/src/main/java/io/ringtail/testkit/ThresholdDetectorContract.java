package io.ringtail.testkit;

import static io.ringtail.decision.ThresholdDecision.Outcome.COUNTED;
import static io.ringtail.decision.ThresholdDecision.Outcome.DUPLICATE;
import static io.ringtail.decision.ThresholdDecision.Outcome.EXPIRED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ThresholdDetector} must do, whatever it stores and wherever.
 *
 * <p>Published in core's test-jar. A backend extends it and builds its detector from the given
 * configuration in {@link #newDetector}; every test passes a {@link ManualTimeSource} in the
 * configuration and moves it explicitly. Keys are unique per test instance.
 */
public abstract class ThresholdDetectorContract extends DecisionContract {
  protected static final Duration WINDOW = Duration.ofSeconds(60);
  private static final long SECOND = Duration.ofSeconds(1).toNanos();

  /** A detector applying {@code config}. */
  protected abstract ThresholdDetector newDetector(ThresholdConfig config);

  private ThresholdDetector detector(int threshold, ManualTimeSource time) {
    return newDetector(
        ThresholdConfig.builder().threshold(threshold).window(WINDOW).timeSource(time).build());
  }

  @Test
  public void tenthEventWithinWindow_firesThresholdTen_ninthDoesNot() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(10, time);
    for (int i = 1; i <= 9; i++) {
      ThresholdDecision d = detector.record(key("jdoe"), "e" + i);
      assertThat(d.outcome()).isEqualTo(COUNTED);
      assertThat(d.count()).isEqualTo(i);
      assertThat(d.fired()).as("event %d", i).isFalse();
      time.advance(Duration.ofSeconds(1));
    }
    ThresholdDecision tenth = detector.record(key("jdoe"), "e10");
    assertThat(tenth.fired()).isTrue();
    assertThat(tenth.crossed()).isTrue();
    assertThat(tenth.count()).isEqualTo(10);
  }

  @Test
  public void twelveEventsOneSecondApart_keepFiring_butCrossOnce() {
    ManualTimeSource time = time();
    ThresholdDetector detector =
        newDetector(
            ThresholdConfig.builder()
                .threshold(10)
                .window(WINDOW)
                .maxEventsPerKey(100)
                .timeSource(time)
                .build());
    long base = time.nanoTime();
    int crossings = 0;
    ThresholdDecision last = null;
    for (int i = 0; i < 12; i++) {
      last = detector.record(key("jdoe"), "e" + i, base + i * SECOND);
      crossings += last.crossed() ? 1 : 0;
    }
    assertThat(last.fired()).isTrue();
    assertThat(last.count()).isEqualTo(12);
    assertThat(crossings).isEqualTo(1);
  }

  @Test
  public void eventsOlderThanWindow_areEvictedAndNotCounted() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(10, time);
    long base = time.nanoTime();
    for (int i = 0; i < 9; i++) {
      detector.record(key("a"), "old" + i, base + i * SECOND);
    }
    ThresholdDecision later =
        detector.record(key("a"), "new", base + 8 * SECOND + WINDOW.toNanos());
    assertThat(later.count()).as("the nine old events left the window").isEqualTo(1);
    assertThat(later.fired()).isFalse();
    ThresholdDecision stale = detector.record(key("a"), "stale", base + 8 * SECOND);
    assertThat(stale.outcome()).isEqualTo(EXPIRED);
    assertThat(stale.count()).isEqualTo(1);
    assertThat(stale.fired()).isFalse();
  }

  @Test
  public void windowIsHalfOpen() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(2, time);
    long latest = time.nanoTime() + WINDOW.toNanos();
    detector.record(key("a"), "latest", latest);
    assertThat(detector.record(key("a"), "edge", latest - WINDOW.toNanos()).outcome())
        .isEqualTo(EXPIRED);
    ThresholdDecision inside = detector.record(key("a"), "inside", latest - WINDOW.toNanos() + 1);
    assertThat(inside.outcome()).isEqualTo(COUNTED);
    assertThat(inside.fired()).isTrue();
  }

  @Test
  public void outOfOrderEventsWithinWindow_areCounted() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(10, time);
    long base = time.nanoTime();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new java.util.Random(3));
    for (int n = 0; n < 10; n++) {
      int i = order.get(n);
      ThresholdDecision d = detector.record(key("a"), "e" + i, base + i * 5 * SECOND);
      assertThat(d.outcome()).isEqualTo(COUNTED);
      assertThat(d.fired()).as("arrival %d", n + 1).isEqualTo(n == 9);
    }
  }

  @Test
  public void replayedDuplicate_isNotCountedTwice() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(10, time);
    for (int i = 0; i < 9; i++) {
      detector.record(key("a"), "e" + i);
      time.advance(Duration.ofSeconds(1));
    }
    ThresholdDecision replay = detector.record(key("a"), "e3");
    assertThat(replay.outcome()).isEqualTo(DUPLICATE);
    assertThat(replay.count()).isEqualTo(9);
    assertThat(replay.fired()).isFalse();
    assertThat(detector.record(key("a"), "e9").fired()).isTrue();
    assertThat(detector.record(key("a"), "e9").outcome()).isEqualTo(DUPLICATE);
  }

  @Test
  public void sameEventIdUnderDifferentKeys_countsForEach() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(1, time);
    assertThat(detector.record(key("a"), "same").fired()).isTrue();
    assertThat(detector.record(key("b"), "same").fired()).isTrue();
  }

  @Test
  public void crossing_repeatsOnlyAfterFallingBelow() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(2, time);
    assertThat(detector.record(key("a"), "1").crossed()).isFalse();
    assertThat(detector.record(key("a"), "2").crossed()).isTrue();
    assertThat(detector.record(key("a"), "3").crossed()).isFalse();
    time.advance(WINDOW);
    ThresholdDecision alone = detector.record(key("a"), "4");
    assertThat(alone.count()).isEqualTo(1);
    assertThat(alone.crossed()).isFalse();
    assertThat(detector.record(key("a"), "5").crossed()).isTrue();
  }

  @Test
  public void perKeyFlood_staysBoundedAndStillFires() {
    ManualTimeSource time = time();
    ThresholdDetector detector =
        newDetector(
            ThresholdConfig.builder()
                .threshold(10)
                .window(WINDOW)
                .maxEventsPerKey(50)
                .timeSource(time)
                .build());
    ThresholdDecision d = null;
    for (int i = 0; i < 5_000; i++) {
      d = detector.record(key("flood"), "f" + i);
    }
    assertThat(d.count()).isEqualTo(50);
    assertThat(d.fired()).isTrue();
    time.advance(WINDOW);
    ThresholdDecision after = detector.record(key("flood"), "after");
    assertThat(after.count()).isEqualTo(1);
    assertThat(after.fired()).isFalse();
  }

  @Test
  public void badInput_throwsAndLosesNothing() {
    ManualTimeSource time = time();
    ThresholdDetector detector = detector(3, time);
    detector.record(key("a"), "1");
    assertThatThrownBy(() -> detector.record(null, "x"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> detector.record("", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> detector.record(key("a"), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("eventId");
    assertThatThrownBy(() -> detector.record(key("a"), "", time.nanoTime()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("eventId");
    ThresholdDecision d = detector.record(key("a"), "2");
    assertThat(d.count()).isEqualTo(2);
  }

  @Test
  public void referenceModel_randomStreams() {
    for (int threshold : new int[] {1, 3, 10}) {
      ManualTimeSource time = time();
      ThresholdDetector detector =
          newDetector(
              ThresholdConfig.builder()
                  .threshold(threshold)
                  .window(WINDOW)
                  .maxEventsPerKey(ThresholdConfig.MAX_EVENTS_PER_KEY)
                  .idleExpiry(WINDOW.multipliedBy(3))
                  .timeSource(time)
                  .build());
      ExactDecisionModels.Threshold model = new ExactDecisionModels.Threshold(threshold, WINDOW);
      SplittableRandom random = new SplittableRandom(11 + threshold);
      String[] keys = {key("r" + threshold + "a"), key("r" + threshold + "b")};
      int nextId = 0;
      for (int i = 0; i < randomOperations(); i++) {
        int step = random.nextInt(10);
        if (step < 5) {
          time.advanceNanos(random.nextLong(WINDOW.toNanos() / (2L * threshold)));
        } else if (step == 5) {
          time.advance(WINDOW.plusSeconds(random.nextInt(2)));
        }
        String key = keys[random.nextInt(keys.length)];
        long t =
            time.nanoTime()
                - (random.nextInt(4) == 0 ? random.nextLong(WINDOW.toNanos() + SECOND) : 0);
        String id =
            random.nextInt(6) == 0 && nextId > 0
                ? "id" + (nextId - 1 - random.nextInt(Math.min(nextId, 20)))
                : "id" + nextId++;
        ThresholdDecision expected = model.record(key, id, t);
        assertThat(detector.record(key, id, t))
            .as("operation %d threshold %d", i, threshold)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  public void concurrentDistinctEventsForOneKey_areAllCounted_andCrossOnce() throws Exception {
    ManualTimeSource time = time();
    int total = threads() * attemptsPerThread();
    int threshold = total / 2;
    ThresholdDetector detector =
        newDetector(
            ThresholdConfig.builder()
                .threshold(threshold)
                .window(WINDOW)
                .maxEventsPerKey(total + 1)
                .timeSource(time)
                .build());
    AtomicInteger ids = new AtomicInteger();
    for (int round = 0; round < rounds(); round++) {
      AtomicInteger crossings = new AtomicInteger();
      int fired =
          Races.countTrue(
              threads(),
              attemptsPerThread(),
              () -> {
                ThresholdDecision d = detector.record(key("hot"), "e" + ids.getAndIncrement());
                if (d.crossed()) {
                  crossings.incrementAndGet();
                }
                return d.fired();
              });
      assertThat(fired).as("round %d", round).isEqualTo(total - threshold + 1);
      assertThat(crossings).hasValue(1);
      ThresholdDecision last = detector.record(key("hot"), "last" + round);
      assertThat(last.count()).isEqualTo(total + 1);
      time.advance(WINDOW);
    }
  }

  @Test
  public void concurrentReplays_areCountedOnce() throws Exception {
    ManualTimeSource time = time();
    int distinct = attemptsPerThread();
    ThresholdDetector detector =
        newDetector(
            ThresholdConfig.builder()
                .threshold(distinct)
                .window(WINDOW)
                .maxEventsPerKey(distinct + 1)
                .timeSource(time)
                .build());
    AtomicInteger perThread = new AtomicInteger();
    ThreadLocal<int[]> next = ThreadLocal.withInitial(() -> new int[1]);
    int counted =
        Races.countTrue(
            threads(),
            distinct,
            () -> {
              int i = next.get()[0]++;
              perThread.incrementAndGet();
              return detector.record(key("replayed"), "e" + i).outcome() == COUNTED;
            });
    assertThat(perThread).hasValue(threads() * distinct);
    assertThat(counted).isEqualTo(distinct);
    assertThat(detector.record(key("replayed"), "new").count()).isEqualTo(distinct + 1);
  }

  @Test
  public void listener_notifiedOncePerCrossing_withCooldown() {
    ManualTimeSource time = time();
    List<String> seen = new CopyOnWriteArrayList<>();
    ThresholdDetector detector =
        newDetector(
            ThresholdConfig.builder()
                .threshold(2)
                .window(WINDOW)
                .timeSource(time)
                .listenerCooldown(WINDOW.multipliedBy(3))
                .listener((k, d) -> seen.add(k + ":" + d.count()))
                .build());
    detector.record(key("a"), "1");
    assertThat(seen).isEmpty();
    detector.record(key("a"), "2");
    detector.record(key("a"), "3");
    assertThat(seen).containsExactly(key("a") + ":2");

    time.advance(WINDOW);
    detector.record(key("a"), "4");
    detector.record(key("a"), "5");
    assertThat(seen).as("second crossing inside the cooldown").hasSize(1);

    time.advance(WINDOW.multipliedBy(3));
    detector.record(key("a"), "6");
    detector.record(key("a"), "7");
    assertThat(seen).containsExactly(key("a") + ":2", key("a") + ":2");
  }

  @Test
  public void throwingListener_losesNoDecision() {
    ManualTimeSource time = time();
    ThresholdDetector detector =
        newDetector(
            ThresholdConfig.builder()
                .threshold(1)
                .window(WINDOW)
                .maxEventsPerKey(10)
                .timeSource(time)
                .listener(
                    (k, d) -> {
                      throw new IllegalStateException("listener bug");
                    })
                .build());
    assertThat(detector.record(key("a"), "1").fired()).isTrue();
    assertThat(detector.record(key("a"), "2").count()).isEqualTo(2);
  }
}
