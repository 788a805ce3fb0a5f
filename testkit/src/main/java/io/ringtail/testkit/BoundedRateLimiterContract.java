package io.ringtail.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RateLimiter} that trades exactness for memory must do: never admit more than
 * the limit in any window, and deny no earlier, and let a key through again no later, than the
 * exact sliding log would with the window stretched back by its stated {@link #lateness}.
 *
 * <p>A backend extends it, builds its limiter in {@link #newLimiter} and states its bound. Every
 * test passes a {@link ManualTimeSource} in the configuration and moves it explicitly; keys are
 * unique per test run.
 */
public abstract class BoundedRateLimiterContract extends DecisionContract {
  protected static final Duration WINDOW = Duration.ofSeconds(60);

  /** A limiter applying {@code config}. */
  protected abstract RateLimiter newLimiter(RateLimitConfig config);

  /** How much longer than the exact log's window this limiter may count an admitted request. */
  protected abstract Duration lateness(RateLimitConfig config);

  private RateLimitConfig config(int limit, ManualTimeSource time) {
    return RateLimitConfig.builder()
        .limit(limit)
        .window(WINDOW)
        .idleExpiry(WINDOW.multipliedBy(3))
        .timeSource(time)
        .build();
  }

  @Test
  public void burst_admitsLimitThenDenies() {
    ManualTimeSource time = time();
    RateLimitConfig config = config(5, time);
    RateLimiter limiter = newLimiter(config);
    for (int i = 4; i >= 0; i--) {
      RateDecision d = limiter.tryAcquire(key("a"));
      assertThat(d.allowed()).isTrue();
      assertThat(d.remaining()).isEqualTo(i);
    }
    RateDecision denied = limiter.tryAcquire(key("a"));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.remaining()).isZero();
    assertThat(denied.retryAfter()).isBetween(WINDOW, WINDOW.plus(lateness(config)));
  }

  @Test
  public void retryAfter_isHonoured_andDenialsAreNotRecorded() {
    ManualTimeSource time = time();
    RateLimitConfig config = config(2, time);
    RateLimiter limiter = newLimiter(config);
    limiter.tryAcquire(key("a"));
    time.advance(Duration.ofSeconds(7));
    limiter.tryAcquire(key("a"));
    RateDecision denied = null;
    for (int i = 0; i < 10; i++) {
      time.advance(Duration.ofSeconds(1));
      denied = limiter.tryAcquire(key("a"));
      assertThat(denied.allowed()).isFalse();
    }
    long t = time.nanoTime();
    Duration exact = Duration.ofSeconds(60 - 17);
    assertThat(denied.retryAfter()).isBetween(exact, exact.plus(lateness(config)));
    assertThat(limiter.tryAcquire(key("a"), t + denied.retryAfter().toNanos() - 1).allowed())
        .isFalse();
    assertThat(limiter.tryAcquire(key("a"), t + denied.retryAfter().toNanos()).allowed())
        .as("admitted exactly when the retry-after said, denials having extended nothing")
        .isTrue();
  }

  @Test
  public void randomStreams_neverOverAdmit_andStayWithinTheBound() {
    for (int limit : new int[] {1, 3, 10}) {
      ManualTimeSource time = time();
      RateLimitConfig config = config(limit, time);
      RateLimiter limiter = newLimiter(config);
      long w = WINDOW.toNanos();
      long late = lateness(config).toNanos();
      SplittableRandom random = new SplittableRandom(42 + limit);
      List<Long> admitted = new ArrayList<>();
      long latest = Long.MIN_VALUE;
      String key = key("r" + limit);
      for (int i = 0; i < randomOperations(); i++) {
        int step = random.nextInt(10);
        if (step < 5) {
          time.advanceNanos(random.nextLong(w / (4L * limit)));
        } else if (step == 5) {
          time.advance(WINDOW.plusSeconds(random.nextInt(3)));
        } else if (step == 6) {
          time.advanceNanos(w - random.nextInt(3) + 1);
        }
        long t = random.nextInt(20) == 0 ? time.nanoTime() - random.nextLong(w) : time.nanoTime();
        latest = i == 0 ? t : Math.max(latest, t);
        long at = latest;
        RateDecision d = limiter.tryAcquire(key, t);
        List<Long> inWindow = admitted.stream().filter(a -> at - a < w).toList();
        List<Long> inStretched = admitted.stream().filter(a -> at - a < w + late).toList();
        String where = "operation " + i + " limit " + limit;
        if (d.allowed()) {
          assertThat(inWindow.size())
              .as(where + ": never more than the limit in a window")
              .isLessThan(limit);
          admitted.add(at);
          assertThat(d.remaining())
              .as(where)
              .isBetween(limit - inStretched.size() - 1, limit - inWindow.size() - 1);
        } else {
          assertThat(inStretched.size())
              .as(where + ": denies only when the stretched window is full")
              .isGreaterThanOrEqualTo(limit);
          assertThat(d.remaining()).isZero();
        }
        List<Long> held = admitted.stream().filter(a -> at - a < w + late).toList();
        if (d.remaining() == 0) {
          long exactAt =
              inWindow.size() + (d.allowed() ? 1 : 0) < limit
                  ? at
                  : admitted.stream()
                          .filter(a -> at - a < w)
                          .toList()
                          .get(admitted.stream().filter(a -> at - a < w).toList().size() - limit)
                      + w;
          long latestAt = held.get(held.size() - limit) + w + late;
          assertThat(at + d.retryAfter().toNanos())
              .as(where + ": retry-after within the bound")
              .isBetween(exactAt, latestAt);
        }
      }
    }
  }

  @Test
  public void keys_areIndependent_andBadKeysThrow() {
    ManualTimeSource time = time();
    RateLimiter limiter = newLimiter(config(1, time));
    assertThat(limiter.tryAcquire(key("a")).allowed()).isTrue();
    assertThat(limiter.tryAcquire(key("a")).allowed()).isFalse();
    assertThat(limiter.tryAcquire(key("b")).allowed()).isTrue();
    assertThatThrownBy(() -> limiter.tryAcquire(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> limiter.tryAcquire("", time.nanoTime()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }

  @Test
  public void concurrentRequestsForOneKey_admitExactlyTheLimit() throws Exception {
    ManualTimeSource time = time();
    int limit = Math.max(1, threads() * attemptsPerThread() * 3 / 4);
    RateLimitConfig config = config(limit, time);
    RateLimiter limiter = newLimiter(config);
    for (int round = 0; round < rounds(); round++) {
      int admitted =
          Races.countTrue(
              threads(), attemptsPerThread(), () -> limiter.tryAcquire(key("hot")).allowed());
      assertThat(admitted).as("round %d", round).isEqualTo(limit);
      time.advance(WINDOW.plus(lateness(config)));
    }
  }

  @Test
  public void listener_notifiedOncePerCrossing() {
    ManualTimeSource time = time();
    List<String> seen = new CopyOnWriteArrayList<>();
    RateLimiter limiter =
        newLimiter(
            RateLimitConfig.builder()
                .limit(2)
                .window(WINDOW)
                .timeSource(time)
                .listenerCooldown(Duration.ZERO)
                .listener((k, d) -> seen.add(k + ":" + d.allowed()))
                .build());
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    assertThat(seen).isEmpty();
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    assertThat(seen).containsExactly(key("a") + ":false");
    time.advance(WINDOW.multipliedBy(2));
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    assertThat(seen).hasSize(2);
  }
}
