package io.ringtail.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RateLimiter} must do, whatever it stores and wherever.
 *
 * <p>Published in core's test-jar. A backend extends it and builds its limiter from the given
 * configuration in {@link #newLimiter}; every test passes a {@link ManualTimeSource} in the
 * configuration and moves it explicitly. Keys are unique per test run (see {@link #key}), so a
 * shared server needs no flushing between tests.
 */
public abstract class RateLimiterContract extends DecisionContract {
  protected static final Duration WINDOW = Duration.ofSeconds(60);

  /** A limiter applying {@code config}. */
  protected abstract RateLimiter newLimiter(RateLimitConfig config);

  private RateLimiter limiter(int limit, ManualTimeSource time) {
    return newLimiter(
        RateLimitConfig.builder().limit(limit).window(WINDOW).timeSource(time).build());
  }

  @Test
  public void tryAcquire_admitsLimitThenDenies() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(5, time);
    for (int i = 4; i >= 0; i--) {
      RateDecision d = limiter.tryAcquire(key("a"));
      assertThat(d.allowed()).isTrue();
      assertThat(d.remaining()).isEqualTo(i);
      time.advance(Duration.ofSeconds(1));
    }
    RateDecision denied = limiter.tryAcquire(key("a"));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.remaining()).isZero();
    assertThat(denied.limit()).isEqualTo(5);
    assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(55));
  }

  @Test
  public void lastAdmitted_reportsRetryAfterOfOldest() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(2, time);
    assertThat(limiter.tryAcquire(key("a")).retryAfter()).isZero();
    time.advance(Duration.ofSeconds(10));
    RateDecision last = limiter.tryAcquire(key("a"));
    assertThat(last.allowed()).isTrue();
    assertThat(last.remaining()).isZero();
    assertThat(last.retryAfter()).isEqualTo(Duration.ofSeconds(50));
  }

  @Test
  public void retryAfter_isExact_andWindowIsHalfOpen() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(3, time);
    long t0 = time.nanoTime();
    limiter.tryAcquire(key("a"), t0);
    limiter.tryAcquire(key("a"), t0 + Duration.ofSeconds(10).toNanos());
    limiter.tryAcquire(key("a"), t0 + Duration.ofSeconds(20).toNanos());

    RateDecision at30 = limiter.tryAcquire(key("a"), t0 + Duration.ofSeconds(30).toNanos());
    assertThat(at30.allowed()).isFalse();
    assertThat(at30.retryAfter()).isEqualTo(Duration.ofSeconds(30));

    RateDecision justBefore = limiter.tryAcquire(key("a"), t0 + WINDOW.toNanos() - 1);
    assertThat(justBefore.allowed()).isFalse();
    assertThat(justBefore.retryAfter()).isEqualTo(Duration.ofNanos(1));

    RateDecision atEdge = limiter.tryAcquire(key("a"), t0 + WINDOW.toNanos());
    assertThat(atEdge.allowed())
        .as("the oldest request leaves the window exactly W after it")
        .isTrue();
    assertThat(atEdge.remaining()).isZero();
    assertThat(atEdge.retryAfter()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  public void deniedRequests_areNotRecorded() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(1, time);
    limiter.tryAcquire(key("a"));
    for (int i = 0; i < 59; i++) {
      time.advance(Duration.ofSeconds(1));
      assertThat(limiter.tryAcquire(key("a")).allowed()).isFalse();
    }
    time.advance(Duration.ofSeconds(1));
    assertThat(limiter.tryAcquire(key("a")).allowed())
        .as("denials must not extend the wait")
        .isTrue();
  }

  @Test
  public void burstStraddlingAnyBoundary_neverExceedsLimit() {
    ManualTimeSource time = time();
    int limit = 10;
    RateLimiter limiter = limiter(limit, time);
    long t0 = time.nanoTime();
    // The fixed-window attack: a full burst just before a minute boundary, another just after.
    long beforeEdge = t0 + WINDOW.toNanos() - Duration.ofMillis(1).toNanos();
    long afterEdge = t0 + WINDOW.toNanos() + Duration.ofMillis(1).toNanos();
    int admitted = 0;
    for (int i = 0; i < limit; i++) {
      admitted += limiter.tryAcquire(key("a"), beforeEdge).allowed() ? 1 : 0;
    }
    for (int i = 0; i < limit; i++) {
      admitted += limiter.tryAcquire(key("a"), afterEdge).allowed() ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(limit);
    RateDecision later = limiter.tryAcquire(key("a"), beforeEdge + WINDOW.toNanos());
    assertThat(later.allowed()).isTrue();
    assertThat(later.remaining()).isEqualTo(limit - 1);
  }

  @Test
  public void keys_areIndependent() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(1, time);
    assertThat(limiter.tryAcquire(key("a")).allowed()).isTrue();
    assertThat(limiter.tryAcquire(key("a")).allowed()).isFalse();
    assertThat(limiter.tryAcquire(key("b")).allowed()).isTrue();
  }

  @Test
  public void timeBeforeLatest_isDecidedAsOfLatest() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(2, time);
    long t0 = time.nanoTime();
    long later = t0 + Duration.ofSeconds(30).toNanos();
    limiter.tryAcquire(key("a"), later);
    RateDecision early = limiter.tryAcquire(key("a"), t0);
    assertThat(early.allowed()).isTrue();
    assertThat(early.retryAfter()).as("both are recorded at the latest time").isEqualTo(WINDOW);
    RateDecision denied = limiter.tryAcquire(key("a"), t0 + WINDOW.toNanos() + 1);
    assertThat(denied.allowed()).as("the early request counts until latest + W").isFalse();
    assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(30).minusNanos(1));
  }

  @Test
  public void badKey_throwsAndLosesNothing() {
    ManualTimeSource time = time();
    RateLimiter limiter = limiter(3, time);
    limiter.tryAcquire(key("a"));
    assertThatThrownBy(() -> limiter.tryAcquire(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> limiter.tryAcquire(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> limiter.tryAcquire(null, time.nanoTime()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThat(limiter.tryAcquire(key("a")).remaining()).isEqualTo(1);
  }

  @Test
  public void referenceModel_randomStreams() {
    for (int limit : new int[] {1, 3, 10}) {
      ManualTimeSource time = time();
      // explicit times lag the clock by up to W: keys must be kept for 2W of idleness at least
      RateLimiter limiter =
          newLimiter(
              RateLimitConfig.builder()
                  .limit(limit)
                  .window(WINDOW)
                  .idleExpiry(WINDOW.multipliedBy(3))
                  .timeSource(time)
                  .build());
      ExactDecisionModels.RateLimit model = new ExactDecisionModels.RateLimit(limit, WINDOW);
      SplittableRandom random = new SplittableRandom(42 + limit);
      String[] keys = {key("r" + limit + "a"), key("r" + limit + "b"), key("r" + limit + "c")};
      for (int i = 0; i < randomOperations(); i++) {
        int step = random.nextInt(10);
        if (step < 5) {
          time.advanceNanos(random.nextLong(WINDOW.toNanos() / (4L * limit)));
        } else if (step == 5) {
          time.advance(WINDOW.plusSeconds(random.nextInt(3)));
        } else if (step == 6) {
          time.advanceNanos(WINDOW.toNanos() - random.nextInt(3) + 1);
        }
        String key = keys[random.nextInt(keys.length)];
        long t =
            random.nextInt(20) == 0
                ? time.nanoTime() - random.nextLong(WINDOW.toNanos())
                : time.nanoTime();
        RateDecision expected = model.tryAcquire(key, t);
        assertThat(limiter.tryAcquire(key, t))
            .as("operation %d limit %d", i, limit)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  public void concurrentRequestsForOneKey_neverOverAdmit() throws Exception {
    ManualTimeSource time = time();
    int attempts = threads() * attemptsPerThread();
    int limit = Math.max(1, attempts * 3 / 4);
    RateLimiter limiter = limiter(limit, time);
    for (int round = 0; round < rounds(); round++) {
      int admitted = race(() -> limiter.tryAcquire(key("hot")).allowed());
      assertThat(admitted).as("round %d", round).isEqualTo(limit);
      RateDecision after = limiter.tryAcquire(key("hot"));
      assertThat(after.allowed()).isFalse();
      assertThat(after.remaining()).isZero();
      time.advance(WINDOW);
    }
  }

  @Test
  public void concurrentPhasesAsTimeMoves_admitExactlyWhatTheWindowFrees() throws Exception {
    ManualTimeSource time = time();
    int limit = 3 * threads();
    RateLimiter limiter = limiter(limit, time);
    long step = WINDOW.toNanos() / 4;
    SplittableRandom random = new SplittableRandom(7);
    int[] admittedPerPhase = new int[12];
    for (int phase = 0; phase < admittedPerPhase.length; phase++) {
      int perThread = 1 + random.nextInt(6);
      long t = time.nanoTime();
      int admitted = race(perThread, () -> limiter.tryAcquire(key("phased"), t).allowed());
      int inWindow = 0;
      for (int back = 1; back <= 3 && phase - back >= 0; back++) {
        inWindow += admittedPerPhase[phase - back];
      }
      assertThat(admitted)
          .as("phase %d", phase)
          .isEqualTo(Math.min(perThread * threads(), limit - inWindow));
      admittedPerPhase[phase] = admitted;
      time.advanceNanos(step);
    }
  }

  @Test
  public void listener_notifiedOncePerCrossing_withCooldown() {
    ManualTimeSource time = time();
    List<String> seen = new CopyOnWriteArrayList<>();
    RateLimiter limiter =
        newLimiter(
            RateLimitConfig.builder()
                .limit(2)
                .window(WINDOW)
                .timeSource(time)
                .listenerCooldown(WINDOW.multipliedBy(3))
                .listener((k, d) -> seen.add(k + ":" + d.allowed()))
                .build());
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    assertThat(seen).isEmpty();
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("b"));
    assertThat(seen).containsExactly(key("a") + ":false");

    time.advance(WINDOW);
    assertThat(limiter.tryAcquire(key("a")).allowed()).isTrue();
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    assertThat(seen).as("second crossing inside the cooldown").hasSize(1);

    time.advance(WINDOW.multipliedBy(3));
    limiter.tryAcquire(key("a"));
    limiter.tryAcquire(key("a"));
    assertThat(seen).hasSize(1);
    assertThat(limiter.tryAcquire(key("a")).allowed()).isFalse();
    assertThat(seen).containsExactly(key("a") + ":false", key("a") + ":false");
  }

  @Test
  public void throwingListener_losesNoDecision() {
    ManualTimeSource time = time();
    RateLimiter limiter =
        newLimiter(
            RateLimitConfig.builder()
                .limit(1)
                .window(WINDOW)
                .timeSource(time)
                .listener(
                    (k, d) -> {
                      throw new IllegalStateException("listener bug");
                    })
                .build());
    assertThat(limiter.tryAcquire(key("a")).allowed()).isTrue();
    RateDecision denied = limiter.tryAcquire(key("a"));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.retryAfter()).isEqualTo(WINDOW);
  }

  private int race(java.util.concurrent.Callable<Boolean> op) throws Exception {
    return Races.countTrue(threads(), attemptsPerThread(), op);
  }

  private int race(int attempts, java.util.concurrent.Callable<Boolean> op) throws Exception {
    return Races.countTrue(threads(), attempts, op);
  }
}
