package io.ringtail.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StartTimesTest {

  /**
   * Eight threads take holders, keep several in flight, and give them back in random order, some on
   * another thread than the one that took them: no holder is ever owned twice at once, and each
   * keeps the time its owner set until given back.
   */
  @Test
  void underContention_aHolderHasOneOwnerAtATime_andKeepsItsTime() throws Exception {
    StartTimes pool = new StartTimes(4); // few slots: threads share them
    Set<StartTimes.Start> owned = Collections.newSetFromMap(new IdentityHashMap<>());
    Set<StartTimes.Start> ownedSafe = Collections.synchronizedSet(owned);
    ConcurrentHashMap<Integer, List<StartTimes.Start>> handedOver = new ConcurrentHashMap<>();
    AtomicLong clashes = new AtomicLong();
    AtomicLong taken = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int me = t;
        done.add(
            threads.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(me);
                  List<StartTimes.Start> mine = new ArrayList<>();
                  List<Long> times = new ArrayList<>();
                  for (int op = 0; op < 200_000; op++) {
                    if (mine.size() < 4 && random.nextBoolean()) {
                      long nanos = random.nextLong();
                      StartTimes.Start s = pool.take(nanos, Thread.currentThread(), 0);
                      if (!ownedSafe.add(s)) {
                        clashes.incrementAndGet();
                      }
                      taken.incrementAndGet();
                      mine.add(s);
                      times.add(nanos);
                    } else if (!mine.isEmpty()) {
                      int i = random.nextInt(mine.size());
                      StartTimes.Start s = mine.remove(i);
                      long nanos = times.remove(i);
                      if (s.nanos != nanos) {
                        clashes.incrementAndGet();
                      }
                      ownedSafe.remove(s);
                      if (random.nextInt(10) == 0) {
                        // stopped on another thread: handed over, given back there
                        handedOver.computeIfAbsent((me + 1) % 8, k -> new ArrayList<>());
                        synchronized (handedOver.get((me + 1) % 8)) {
                          handedOver.get((me + 1) % 8).add(s);
                        }
                      } else {
                        assertThat(pool.give(s, s.owner)).isTrue();
                      }
                    }
                    List<StartTimes.Start> inbox = handedOver.get(me);
                    if (inbox != null) {
                      synchronized (inbox) {
                        inbox.forEach(s -> pool.give(s, s.owner));
                        inbox.clear();
                      }
                    }
                  }
                  for (int i = 0; i < mine.size(); i++) {
                    if (mine.get(i).nanos != times.get(i)) {
                      clashes.incrementAndGet();
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(taken.get()).isGreaterThan(100_000);
    assertThat(clashes.get()).isZero();
  }

  @Test
  void oneThread_takingAndGivingBack_reusesItsHolder_andASecondStopGivesNothing() {
    StartTimes pool = new StartTimes(64);
    Object a = new Object();
    Object b = new Object();
    StartTimes.Start first = pool.take(5, a, 3);
    assertThat(first.observed).isEqualTo(3);
    assertThat(pool.give(first, a)).isTrue();
    assertThat(pool.give(first, a)).as("stopped twice").isFalse();
    StartTimes.Start again = pool.take(9, b, 0);
    assertThat(again).isSameAs(first);
    assertThat(again.nanos).isEqualTo(9);
    assertThat(pool.give(again, a)).as("a's holder is b's now").isFalse();
    // a second holder in flight is a new one; giving both back keeps one
    StartTimes.Start other = pool.take(11, a, 0);
    assertThat(other).isNotSameAs(again);
    assertThat(pool.give(again, b)).isTrue();
    assertThat(pool.give(other, a)).isTrue();
    assertThat(pool.take(1, a, 0)).isSameAs(again);
  }
}
