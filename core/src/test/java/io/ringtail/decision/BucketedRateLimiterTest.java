package io.ringtail.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Where the in-process bucketed limiter lays its sub-windows over a key's life. */
class BucketedRateLimiterTest {
  private static final Duration WINDOW = Duration.ofSeconds(16);
  private static final long G = BucketedRateLimiter.bucketWidth(WINDOW.toNanos()); // 1 s
  private static final long T0 = 1_000_000_000_000L;

  private static RateLimiter limiter() {
    return RateLimiter.inProcessBucketed(
        RateLimitConfig.builder()
            .limit(1)
            .window(WINDOW)
            .idleExpiry(Duration.ofDays(1))
            .timeSource(new ManualTimeSource(T0))
            .build());
  }

  /**
   * After every bucket has expired the grid stays where the first request laid it: the request half
   * a bucket into a sub-window is counted in that sub-window, so a denial right after it frees half
   * a bucket sooner than a grid laid from the request would. (A grid laid again from such a request
   * depended on which requests the state had seen, so a Redis client answering denials itself would
   * have moved it.)
   */
  @Test
  void tryAcquire_afterEveryBucketExpired_keepsTheFirstRequestsGrid() {
    RateLimiter limiter = limiter();
    assertThat(limiter.tryAcquire("k", T0).allowed()).isTrue();
    long t = T0 + 40 * G + G / 2;
    assertThat(limiter.tryAcquire("k", t).allowed()).isTrue();
    RateDecision denied = limiter.tryAcquire("k", t);
    assertThat(denied.allowed()).isFalse();
    // counted until its bucket's start (T0 + 40 g) plus W + g - 1
    assertThat(denied.retryAfter()).isEqualTo(Duration.ofNanos(WINDOW.toNanos() + G / 2 - 1));
  }

  /** An idle gap of 2^51 ns or more lays the grid again from the request that ends it. */
  @Test
  void tryAcquire_afterAGapPastTheRealignBound_laysTheGridFromTheRequest() {
    RateLimiter limiter = limiter();
    assertThat(limiter.tryAcquire("k", T0).allowed()).isTrue();
    long t = T0 + BucketedRateLimiter.Counters.REALIGN_AFTER + G / 2;
    assertThat(limiter.tryAcquire("k", t).allowed()).isTrue();
    RateDecision denied = limiter.tryAcquire("k", t);
    assertThat(denied.retryAfter()).isEqualTo(Duration.ofNanos(WINDOW.toNanos() + G - 1));
  }
}
