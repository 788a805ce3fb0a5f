package io.ringtail.spring.limit;

import io.ringtail.TimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import java.time.Duration;

/**
 * Where the {@code ringtail.limits} decisions live: in this process, or in Redis when the context
 * has a {@code RedisBackend} ({@link RedisLimitDecisions}). Thread-safe.
 */
interface LimitDecisions {

  /**
   * An exact sliding-log limiter named {@code name} (fleet-wide: the name its instances share);
   * {@code maximumKeys} bounds an in-process one.
   */
  RateLimiter slidingLog(String name, RateLimitConfig config, long maximumKeys);

  /** A bucketed limiter named {@code name}, as {@link #slidingLog} names it. */
  RateLimiter bucketed(String name, RateLimitConfig config, long maximumKeys);

  /** A sum cap named {@code name}. */
  SumCap sumCap(String name, SumCapConfig config, long maximumKeys);

  /** The time base the decisions are made on. */
  TimeSource timeSource();

  /** Whether a decision may wait on I/O (so a WebFlux filter takes it off the event loop). */
  boolean remote();

  /** The Retry-After of a request answered 503 because the decision could not be made. */
  Duration unavailableRetryAfter();

  /** Decisions in this process, on the JVM's monotonic clock. */
  static LimitDecisions inProcess() {
    return inProcess(TimeSource.system());
  }

  /** Decisions in this process, on {@code time}. */
  static LimitDecisions inProcess(TimeSource time) {
    return new LimitDecisions() {
      @Override
      public RateLimiter slidingLog(String name, RateLimitConfig config, long maximumKeys) {
        return RateLimiter.inProcess(config, maximumKeys);
      }

      @Override
      public RateLimiter bucketed(String name, RateLimitConfig config, long maximumKeys) {
        return RateLimiter.inProcessBucketed(config, maximumKeys);
      }

      @Override
      public SumCap sumCap(String name, SumCapConfig config, long maximumKeys) {
        return SumCap.inProcess(config, maximumKeys);
      }

      @Override
      public TimeSource timeSource() {
        return time;
      }

      @Override
      public boolean remote() {
        return false;
      }

      @Override
      public Duration unavailableRetryAfter() {
        return Duration.ofSeconds(1);
      }

      @Override
      public String toString() {
        return "in-process";
      }
    };
  }
}
